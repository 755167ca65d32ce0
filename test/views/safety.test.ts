// Every view at once, fed hostile text wherever a person or the provider supplies text (names, ids, numbers,
// statuses, regions, errors, the command word echoed by help): read as Slack reads mrkdwn, the text adds no
// formatting, mention, link, quote or line break; nothing pings or links; and the agent token appears only in the
// views made to show it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConfirmationPrompt } from '../../src/ops/changes.js';
import { fail } from '../../src/ops/types.js';
import type { Finished } from '../../src/ops/work.js';
import { COMMANDS, parseCommand } from '../../src/slack/command.js';
import { agentChoiceMessage } from '../../src/slack/views/agent-choice.js';
import { agentCreatedMessage, agentInUseMessage, agentsMessage } from '../../src/slack/views/agents.js';
import { announcementMessage, outsideChangesMessage } from '../../src/slack/views/announcement.js';
import { auditMessage } from '../../src/slack/views/audit.js';
import { agentCardMessage, numberCardMessage } from '../../src/slack/views/cards.js';
import { confirmationMessage, confirmationModal } from '../../src/slack/views/confirmation.js';
import { commandErrorMessage, helpMessage } from '../../src/slack/views/help.js';
import { homeView } from '../../src/slack/views/home.js';
import {
  agentCreatedModal,
  agentOptions,
  createAgentModal,
  loadingModal,
  mapModal,
  numberOptions,
  searchModal,
} from '../../src/slack/views/modals.js';
import { numbersMessage, searchResultsMessage } from '../../src/slack/views/numbers.js';
import {
  cancelledMessage,
  doneMessage,
  doneModal,
  failureMessage,
  failureModal,
  formFailedMessage,
  reconciledMessage,
  tokenUndeliveredMessage,
  unchangedMapMessage,
  workingMessage,
} from '../../src/slack/views/results.js';
import { unrouteMessage } from '../../src/slack/views/unroute.js';
import { mrkdwnMarks } from '../harness/slack-mrkdwn.js';
import {
  agent,
  agentsPage,
  auditChange,
  auditPageOf,
  available,
  createdAgent,
  HOSTILE,
  limitViolations,
  numbersPage,
  page,
  purchased,
  rawHostileKeys,
  unescapedMarkup,
} from './support.js';

const ACTOR = 'U0ALICE';
const TOKEN = 'tok_SECRET_only_once';
const now = new Date('2025-03-01T12:00:00Z');
const TAGGED = { labels: ['team:sales', 'vip'] };

const prompt = (change: ConfirmationPrompt['change']): ConfirmationPrompt => ({
  confirmationId: 'cf_1',
  expiresAt: '2025-03-01T12:10:00Z',
  change,
});

/** Help answering `/voice TEXT`: the grammar echoes the unknown command word. */
function helpEcho(text: string) {
  const parsed = parseCommand(text);
  return parsed.ok
    ? helpMessage({ commands: COMMANDS, role: 'viewer', sandbox: true })
    : commandErrorMessage({ error: parsed.error, about: parsed.about });
}

/** Every view, with `text` in every place a person or the provider fills. Split by whether it shows the token. */
function views(text: string): { showToken: [string, unknown][]; others: [string, unknown][] } {
  const agents = [agent({ id: text, name: text, status: text, language: text, numbers: [text] })];
  const numbers = [
    purchased({
      id: text,
      number: text,
      status: text,
      region: text,
      capabilities: [text],
      agentId: text,
      agentName: text,
    }),
  ];
  const filter = { region: text, agentId: text, digits: text };
  const position = { region: text, digits: text, starts: [{ cursor: text }], skipped: 0 };
  const change = auditChange({ actorId: text, target: text, errorMessage: text, agent: { id: text } });
  const created = createdAgent({ id: text, name: text, status: text, agent_token: TOKEN });
  const createdDone: Finished = {
    change: { action: 'agent.create', agent: { id: text, name: text, language: text } },
    createdAgent: created,
  };
  const mapDone: Finished = {
    change: { action: 'routing.map', number: text, agent: { id: text, name: text }, previousAgent: { id: text } },
  };
  const releaseDone: Finished = {
    change: { action: 'number.release', number: { id: text, number: text }, unroutedAgent: { id: text, name: text } },
  };
  const buyDone: Finished = {
    change: { action: 'number.buy', number: { id: text, number: text } },
    note: "The provider's answer was lost; the purchase was verified in the purchased list.",
  };
  const deleteDone: Finished = { change: { action: 'agent.delete', agent: { id: text, name: text } } };
  const failure = fail('provider', text);
  const results = page([available({ number: text, region: text, capabilities: [text, 'voice'] })], text);
  return {
    showToken: [
      ['agentCreatedMessage', agentCreatedMessage(created)],
      ['agentCreatedModal', agentCreatedModal(created)],
      ['doneMessage(agent.create)', doneMessage(createdDone)],
      ['doneModal(agent.create)', doneModal(createdDone)],
    ],
    others: [
      ['helpMessage, echoing the command word', helpEcho(text)],
      ['agentsMessage', agentsMessage({ page: agentsPage(agents, 1, 25, { text }), role: 'admin' })],
      ['numbersMessage', numbersMessage({ page: numbersPage(numbers, 1, 20, filter), role: 'admin' })],
      ['searchResultsMessage', searchResultsMessage({ page: results, position, role: 'admin' })],
      ['searchModal', searchModal({ position, page: results, role: 'admin', privateMetadata: text })],
      ['searchModal(error)', searchModal({ position, role: 'admin', error: text, privateMetadata: '' })],
      ['createAgentModal', createAgentModal({ agentName: text, language: text, privateMetadata: text })],
      ['mapModal', mapModal({ numbers: 1, agents: 1, initial: numbers[0], notOurs: text, privateMetadata: text })],
      [
        'numberCardMessage',
        numberCardMessage({ number: numbers[0] ?? purchased(), history: [change], tags: TAGGED }, 'admin'),
      ],
      ['agentCardMessage', agentCardMessage({ agent: agents[0] ?? agent(), history: [change], tags: TAGGED }, 'admin')],
      ['agentInUseMessage', agentInUseMessage({ agent: { id: text, name: text }, numbers: [text], total: 20 })],
      [
        'agentChoiceMessage',
        agentChoiceMessage({ reference: text, agents: [{ id: text, name: text, numbers: [text] }] }, () => 'chosen'),
      ],
      ['numberOptions', numberOptions({ unrouted: numbers, routed: numbers, matching: { unrouted: 1, routed: 1 } })],
      ['agentOptions', agentOptions({ agents: [{ id: text, name: text, status: text }], matching: 1 })],
      ['loadingModal', loadingModal(text)],
      ['confirmationMessage(buy)', confirmationMessage(prompt({ kind: 'number.buy', number: text }), now)],
      [
        'confirmationMessage(release)',
        confirmationMessage(
          prompt({ kind: 'number.release', number: text, numberId: text, routedAgent: { id: text, name: text } }),
          now,
        ),
      ],
      [
        'confirmationModal(delete)',
        confirmationModal(prompt({ kind: 'agent.delete', agentId: text, agentName: text }), now),
      ],
      [
        'confirmationModal(map)',
        confirmationModal(
          prompt({
            kind: 'routing.map',
            phoneNumber: text,
            agentId: text,
            agentName: text,
            previousAgent: { id: text, name: text },
          }),
          now,
        ),
      ],
      ['doneMessage(map)', doneMessage(mapDone)],
      ['doneModal(map)', doneModal(mapDone)],
      ['doneMessage(release)', doneMessage(releaseDone)],
      ['doneMessage(buy)', doneMessage(buyDone)],
      ['doneMessage(delete)', doneMessage(deleteDone)],
      ['failureMessage', failureMessage(failure)],
      ['failureModal', failureModal(text, failure)],
      [
        'cancelledMessage',
        cancelledMessage({ kind: 'routing.map', phoneNumber: text, agentId: text, agentName: text }),
      ],
      ['workingMessage', workingMessage(text)],
      ['unchangedMapMessage', unchangedMapMessage(text, text)],
      ['unrouteMessage', unrouteMessage(text)],
      ...[createdDone, deleteDone, buyDone, releaseDone, mapDone].map((done): [string, unknown] => [
        `announcementMessage(${done.change.action})`,
        announcementMessage(ACTOR, [{ change: done.change }]),
      ]),
      [
        'announcementMessage(a burst)',
        announcementMessage(
          ACTOR,
          [createdDone, deleteDone, buyDone, releaseDone, mapDone].map((done) => ({
            change: done.change,
            undo: { correlationId: text, offer: {} },
          })),
        ),
      ],
      [
        'auditMessage',
        auditMessage(
          auditPageOf(
            [
              auditChange({
                at: text,
                actorId: text,
                actorName: text,
                action: 'routing.map',
                target: text,
                outcome: 'failed',
                errorCode: text,
                errorMessage: text,
                agent: { id: text, name: text },
                previousAgent: { id: text, name: text },
                attempted: text,
                notes: [{ action: 'access.denied', outcome: 'denied', actorId: text, errorCode: text }],
              }),
            ],
            { filter: { actorId: text, actorName: text, target: text, agentId: text } },
          ),
        ),
      ],
      [
        'homeView',
        homeView({
          agents: agentsPage(agents),
          numbers: numbersPage(numbers, 1, 20, filter),
          role: 'admin',
          sandbox: true,
          error: text,
          position: { agentsPage: 1, numbersPage: 1, numbersFilter: filter },
        }),
      ],
      ['outsideChangesMessage', outsideChangesMessage([createdDone.change, mapDone.change, releaseDone.change])],
      ['formFailedMessage', formFailedMessage(text, text)],
      ['tokenUndeliveredMessage', tokenUndeliveredMessage(created)],
      ['reconciledMessage(done)', reconciledMessage({ ok: true, change: mapDone.change })],
      ['reconciledMessage(failed)', reconciledMessage(failure)],
    ],
  };
}

const all = (text: string) => {
  const { showToken, others } = views(text);
  return [...showToken, ...others];
};

// What people type and providers send: Slack's markup, formatting characters, line breaks and other control
// characters, emoji codes, a forged announcement line, and anything else.
const ATOMS = [
  '\n',
  '\r\n',
  '\t',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u202e',
  '*',
  '_',
  '~',
  '`',
  '```',
  '*bold*',
  '_it_',
  '~struck~',
  '`code`',
  '>',
  '> quoted',
  '&gt; ',
  '&',
  '&amp;',
  '<!channel>',
  '<!here|here>',
  '<@U123>',
  '<#C123|general>',
  '<http://x|y>',
  'http://evil.example/login',
  '@channel',
  '#general',
  ':white_check_mark:',
  ':x:',
  'Desk\n:white_check_mark: Released *+14155550100*',
  'Desk',
  ' ',
];
const hostile = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ATOMS) }, { weight: 1, arbitrary: fc.string() }), {
    minLength: 1,
    maxLength: 8,
  })
  .map((pieces) => pieces.join(''))
  // Text that shows something (blank text is shown as nothing, not as an empty span), that is not a Slack user
  // id (the one mention a view renders on purpose), and that the grammar does not take for a command, nor for a slip
  // of one (whose answer adds that command's line of help, as it does for any slip).
  .filter((text) => /[^\s\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u.test(text))
  .filter((text) => {
    const parsed = parseCommand(text);
    return !/^[UW][A-Z0-9]+$/.test(text) && !parsed.ok && parsed.about === undefined;
  });

describe('hostile text in any view', () => {
  const harmless = all('x').map(([name, view]) => [name, mrkdwnMarks(view)] as const);

  it('is read by Slack with exactly the marks a harmless word gets: no formatting, mention, link or line break', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        all(text).forEach(([name, view], index) => {
          expect(harmless[index]?.[0]).toBe(name);
          expect(mrkdwnMarks(view), `${name} with ${JSON.stringify(text)}`).toEqual(harmless[index]?.[1]);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('includes the forged announcement line, whatever view it lands in', () => {
    const forged = 'Desk\n:white_check_mark: Released *+14155550100*';
    all(forged).forEach(([name, view], index) => {
      expect(mrkdwnMarks(view), name).toEqual(harmless[index]?.[1]);
    });
  });
});

const { showToken, others } = views(HOSTILE);

describe.each([...showToken, ...others])('%s', (_name, output) => {
  it('lets no mention, broadcast or link through in any mrkdwn text', () => {
    expect(unescapedMarkup(output, [`<@${ACTOR}>`])).toEqual([]);
  });

  it('keeps raw user text only where Slack never parses it', () => {
    expect(rawHostileKeys(output)).toEqual([]);
  });

  it("keeps within Slack's limits", () => {
    expect(limitViolations(output)).toEqual([]);
  });
});

describe('the agent token', () => {
  it.each(showToken)('is shown by %s', (_name, output) => {
    expect(JSON.stringify(output)).toContain(TOKEN);
  });

  it.each(others)('is never in %s', (_name, output) => {
    expect(JSON.stringify(output)).not.toContain(TOKEN);
  });

  it('is not in the notification text even of the views that show it', () => {
    const messages = showToken.filter(([name]) => name.includes('Message'));
    expect(messages).toHaveLength(2);
    for (const [, output] of messages) expect((output as { text: string }).text).not.toContain(TOKEN);
  });
});
