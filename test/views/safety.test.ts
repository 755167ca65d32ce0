// Every view at once, fed hostile text: nothing Slack parses may ping, mention or link, and the agent token
// appears only in the views made to show it.
import { describe, expect, it } from 'vitest';
import type { Finished } from '../../src/ops/carry-out.js';
import type { ConfirmationPrompt } from '../../src/ops/changes.js';
import { fail } from '../../src/ops/types.js';
import { COMMANDS } from '../../src/slack/command.js';
import { agentCreatedMessage, agentInUseMessage, agentsMessage } from '../../src/slack/views/agents.js';
import { announcementMessage } from '../../src/slack/views/announcement.js';
import { auditMessage } from '../../src/slack/views/audit.js';
import { agentCardMessage, numberCardMessage } from '../../src/slack/views/cards.js';
import { confirmationMessage, confirmationModal } from '../../src/slack/views/confirmation.js';
import { helpMessage } from '../../src/slack/views/help.js';
import { homeView } from '../../src/slack/views/home.js';
import {
  agentCreatedModal,
  agentOptions,
  createAgentModal,
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
  unchangedMapMessage,
  workingMessage,
} from '../../src/slack/views/results.js';
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
const agents = [agent({ id: HOSTILE, name: HOSTILE, status: HOSTILE, language: HOSTILE, numbers: [HOSTILE] })];
const numbers = [
  purchased({
    id: HOSTILE,
    number: HOSTILE,
    status: HOSTILE,
    region: HOSTILE,
    capabilities: [HOSTILE],
    agentId: HOSTILE,
    agentName: HOSTILE,
  }),
];
const created = createdAgent({ id: HOSTILE, name: HOSTILE, agent_token: TOKEN });
const createdDone: Finished = {
  change: { action: 'agent.create', agent: { id: HOSTILE, name: HOSTILE, language: HOSTILE } },
  createdAgent: created,
  note: HOSTILE,
};
const mapDone: Finished = {
  change: {
    action: 'routing.map',
    number: HOSTILE,
    agent: { id: HOSTILE, name: HOSTILE },
    previousAgent: { id: HOSTILE },
  },
  note: HOSTILE,
};
const prompt = (change: ConfirmationPrompt['change']): ConfirmationPrompt => ({
  confirmationId: 'cf_1',
  expiresAt: '2025-03-01T12:10:00Z',
  change,
});
const failure = fail('provider', HOSTILE);
const hostileChange = auditChange({ actorId: HOSTILE, target: HOSTILE, errorMessage: HOSTILE, agent: { id: HOSTILE } });
const hostileFilter = { region: HOSTILE, agentId: HOSTILE, digits: HOSTILE };
const searchedIn = { region: HOSTILE, digits: HOSTILE, starts: [{ cursor: HOSTILE }], skipped: 0 };
const results = page([available({ number: HOSTILE, region: HOSTILE, capabilities: [HOSTILE, 'voice'] })], HOSTILE);

/** Views that show the agent token, by design. */
const SHOW_TOKEN: [string, unknown][] = [
  ['agentCreatedMessage', agentCreatedMessage(created)],
  ['agentCreatedModal', agentCreatedModal(created)],
  ['doneMessage(agent.create)', doneMessage(createdDone)],
  ['doneModal(agent.create)', doneModal(createdDone)],
];

const OTHERS: [string, unknown][] = [
  ['helpMessage', helpMessage({ commands: COMMANDS, role: 'viewer', sandbox: true, error: HOSTILE })],
  ['agentsMessage', agentsMessage({ page: agentsPage(agents, 1, 25, { text: HOSTILE }), role: 'admin' })],
  ['numbersMessage', numbersMessage({ page: numbersPage(numbers, 1, 20, hostileFilter), role: 'admin' })],
  ['searchResultsMessage', searchResultsMessage({ page: results, position: searchedIn, role: 'admin' })],
  ['searchModal', searchModal({ position: searchedIn, page: results, role: 'admin', privateMetadata: HOSTILE })],
  ['searchModal(error)', searchModal({ position: searchedIn, role: 'admin', error: HOSTILE, privateMetadata: '' })],
  ['createAgentModal', createAgentModal({ agentName: HOSTILE, language: HOSTILE, privateMetadata: HOSTILE })],
  ['mapModal', mapModal({ numbers: 1, agents: 1, initial: numbers[0], notOurs: HOSTILE, privateMetadata: HOSTILE })],
  ['numberCardMessage', numberCardMessage({ number: numbers[0] ?? purchased(), history: [hostileChange] }, 'admin')],
  ['agentCardMessage', agentCardMessage({ agent: agents[0] ?? agent(), history: [hostileChange] }, 'admin')],
  ['agentInUseMessage', agentInUseMessage({ agent: { id: HOSTILE, name: HOSTILE }, numbers: [HOSTILE], total: 20 })],
  ['numberOptions', numberOptions({ unrouted: numbers, routed: numbers, matching: { unrouted: 1, routed: 1 } })],
  ['agentOptions', agentOptions({ agents: [{ id: HOSTILE, name: HOSTILE, status: HOSTILE }], matching: 1 })],
  ['confirmationMessage(buy)', confirmationMessage(prompt({ kind: 'number.buy', number: HOSTILE }), now)],
  [
    'confirmationMessage(release)',
    confirmationMessage(
      prompt({
        kind: 'number.release',
        number: HOSTILE,
        numberId: HOSTILE,
        routedAgent: { id: HOSTILE, name: HOSTILE },
      }),
      now,
    ),
  ],
  [
    'confirmationModal(delete)',
    confirmationModal(prompt({ kind: 'agent.delete', agentId: HOSTILE, agentName: HOSTILE }), now),
  ],
  [
    'confirmationModal(map)',
    confirmationModal(
      prompt({
        kind: 'routing.map',
        phoneNumber: HOSTILE,
        agentId: HOSTILE,
        agentName: HOSTILE,
        previousAgent: { id: HOSTILE, name: HOSTILE },
      }),
      now,
    ),
  ],
  ['doneMessage(map)', doneMessage(mapDone)],
  ['doneModal(map)', doneModal(mapDone)],
  ['failureMessage', failureMessage(failure)],
  ['failureModal', failureModal(HOSTILE, failure)],
  [
    'cancelledMessage',
    cancelledMessage({ kind: 'routing.map', phoneNumber: HOSTILE, agentId: HOSTILE, agentName: HOSTILE }),
  ],
  ['workingMessage', workingMessage(HOSTILE)],
  ['unchangedMapMessage', unchangedMapMessage(HOSTILE, HOSTILE)],
  ['announcementMessage', announcementMessage(ACTOR, [createdDone.change, mapDone.change])],
  [
    'auditMessage',
    auditMessage(
      auditPageOf(
        [
          auditChange({
            at: HOSTILE,
            actorId: HOSTILE,
            actorName: HOSTILE,
            action: 'routing.map',
            target: HOSTILE,
            outcome: 'failed',
            errorCode: HOSTILE,
            errorMessage: HOSTILE,
            agent: { id: HOSTILE, name: HOSTILE },
            previousAgent: { id: HOSTILE, name: HOSTILE },
            attempted: HOSTILE,
            notes: [{ action: 'access.denied', outcome: 'denied', actorId: HOSTILE, errorCode: HOSTILE }],
          }),
        ],
        { filter: { actorId: HOSTILE, actorName: HOSTILE, target: HOSTILE, agentId: HOSTILE } },
      ),
    ),
  ],
  [
    'homeView',
    homeView({
      agents: agentsPage(agents),
      numbers: numbersPage(numbers, 1, 20, hostileFilter),
      role: 'admin',
      sandbox: true,
      error: HOSTILE,
      position: { agentsPage: 1, numbersPage: 1, numbersFilter: hostileFilter },
    }),
  ],
];

describe.each([...SHOW_TOKEN, ...OTHERS])('%s', (_name, output) => {
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
  it.each(SHOW_TOKEN)('is shown by %s', (_name, output) => {
    expect(JSON.stringify(output)).toContain(TOKEN);
  });

  it.each(OTHERS)('is never in %s', (_name, output) => {
    expect(JSON.stringify(output)).not.toContain(TOKEN);
  });

  it('is not in the notification text even of the view that shows it', () => {
    expect(agentCreatedMessage(created).text).not.toContain(TOKEN);
    expect(doneMessage(createdDone).text).not.toContain(TOKEN);
  });
});
