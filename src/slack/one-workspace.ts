import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Actor } from '../ops/api.js';
import type { AuditSource } from '../store/audit.js';
import type { SlackDeps } from './deps.js';
import { belongsTo, type Identity, type SlackIdentity } from './identity.js';
import { isHome, type People } from './people.js';
import { acknowledge, tellPrivately } from './private-answer.js';
import { type Requester, requesterIn } from './who-asked.js';

const NOT_READY = 'Voice Ops cannot reach Slack right now, so it cannot answer. Try again in a minute.';
const OTHER_WORKSPACE = 'This Voice Ops app serves another workspace: nothing was done.';

/**
 * Only deliveries from the bot token's workspace or org, for its people: someone of another organization in a
 * shared channel is refused and told why. Refusals are audited; before auth.test answers, nothing is handled.
 */
export function oneWorkspace(identity: SlackIdentity, deps: SlackDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const known = identity.current;
    if (!known) return acknowledge(args, NOT_READY);
    const who = requesterIn(args.context);
    const actor = actorOf(args.body, who);
    if (!belongsTo(known, args.context)) {
      await deps.ops.refuseOtherWorkspace(actor, homeOf(known));
      return acknowledge(args, OTHER_WORKSPACE);
    }
    const member = await isMember(known, who, deps.people);
    if (member === true) return args.next();
    const refusal = await deps.ops.refuseOutsider(actor, homeOf(known), member === 'unknown');
    await acknowledge(args, refusal.message);
    if (!('command' in args.body)) await tellPrivately(deps, args.body, actor.userId, refusal.message);
  };
}

/**
 * In a shared channel a delivery's team may be the app's whoever sent it: only the person's profile says which
 * organization they belong to. A profile Slack cannot give grants nothing: 'unknown'.
 */
async function isMember(known: Identity, who: Requester, people: People): Promise<boolean | 'unknown'> {
  const org = known.enterpriseId;
  if (org === undefined && who.ownTeam !== undefined && who.ownTeam !== known.teamId) return false;
  const profile = await people.profile(who.userId);
  if (!profile) return 'unknown';
  return isHome(known, profile);
}

function homeOf(known: Identity): string {
  return known.enterpriseInstall ? `org ${known.enterpriseId ?? 'unknown'}` : `workspace ${known.teamId}`;
}

function actorOf(body: AnyMiddlewareArgs['body'], who: Requester): Actor {
  return { ...who, source: sourceOf(body) };
}

function sourceOf(body: AnyMiddlewareArgs['body']): AuditSource {
  if ('command' in body) return 'command';
  if (body.type === 'block_actions') return 'button';
  if (body.type === 'view_submission' || body.type === 'view_closed' || body.type === 'block_suggestion')
    return 'modal';
  if ('event' in body && body.event.type === 'function_executed') return 'workflow';
  return 'home';
}
