// The first thing a newcomer reads in #voice-ops: what Voice Ops manages, how its teams own things, that nothing
// here is real, and three commands to try, each a button that sends it as if typed. The page draws it above the
// channel's messages; it is the playground's, not the app's, so the app never posts or hears of it.
import { OPS_CHANNEL, SALES, SLASH_COMMAND, SUPPORT } from './people.js';

export interface Welcome {
  /** The channel it opens. */
  channel: string;
  /** mrkdwn, one paragraph a line. */
  text: string;
  tries: { command: string; what: string }[];
}

export const WELCOME: Welcome = {
  channel: OPS_CHANNEL.id,
  text:
    '*Welcome to Voice Ops.* It runs your team’s phone lines from Slack: it buys and releases *phone numbers*, ' +
    'creates *AI agents* that answer them, and *routes* each number to an agent. Every change is *confirmed*, ' +
    'allowed by the person’s *role* (switch person with *User*) and written to an *audit log*.\n' +
    `*Teams* own what they use: Omar is in <!subteam^${SALES.id}> and Sam in <!subteam^${SUPPORT.id}>, and each ` +
    'changes what nobody owns and what their own team owns. To see it, Ada buys a number and gives it to sales ' +
    `with \`${SLASH_COMMAND} own +NUMBER @${SALES.handle}\`.\n` +
    'This is a playground: Slack is a stand-in and the provider a sandbox, so nothing real is bought. ' +
    '*Start over* clears it when its database is its own. Try one of these, or type your own:',
  tries: [
    { command: `${SLASH_COMMAND} numbers search DE`, what: 'Numbers you could buy in Germany' },
    { command: `${SLASH_COMMAND} agents create`, what: 'A form that creates an AI agent' },
    { command: `${SLASH_COMMAND} help`, what: 'Everything this person may do' },
  ],
};
