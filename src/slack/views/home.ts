import type { HomeView, KnownBlock, StaticSelect } from '@slack/types';
import {
  type AgentsPage,
  type NumberFilter,
  type NumbersPage,
  type PoliciesInForce,
  REGIONS,
  type Role,
} from '../../ops/api.js';
import { ACTION, PAGE } from '../ids.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import type { HomePosition } from '../paging.js';
import { agentRows, agentsIntro } from './agents.js';
import { actions, button, context, divider, header, LIMITS, option, section, staticSelect } from './blocks.js';
import { buyNumberButton, numberRows, numbersIntro } from './numbers.js';
import { listPager } from './pager.js';
import { can, ruleLines, SANDBOX_WARNING } from './roles.js';
import { settingsSummary } from './settings.js';

// A Home tab holds 100 blocks: 15 agents (one block each) and 25 numbers (two each) leave 20 for headers, notes,
// the tools and the two pagers.
export const HOME_AGENTS_PAGE_SIZE = 15;
export const HOME_NUMBERS_PAGE_SIZE = 25;

// Each section has one heading, the provider dashboard's; its list says what it holds beneath it.
const AGENTS_SUBTITLE = 'Agents and the numbers that route to each';
const NUMBERS_SUBTITLE = 'Numbers bought and where each routes';

/** The filters the Home tab offers, each valued with the filter itself. */
const HOME_FILTERS: { label: string; filter: NumberFilter }[] = [
  { label: 'All numbers', filter: {} },
  { label: 'Not routed', filter: { routed: false } },
  { label: 'Routed', filter: { routed: true } },
  ...REGIONS.map((region) => ({ label: `In ${region.name} (${region.code})`, filter: { region: region.code } })),
];

/** Which numbers the Numbers section shows; a filter set by other means (digits, an agent) shows none picked. */
function numbersFilterSelect(current: NumberFilter): StaticSelect {
  const options = HOME_FILTERS.map((entry) => option(entry.label, JSON.stringify(entry.filter)));
  return staticSelect({
    actionId: ACTION.homeNumbersFilter,
    placeholder: 'Filter numbers',
    options,
    initialValue: JSON.stringify(current),
  });
}

/** The team's dashboard, laid out like the provider's: Voice AI (agents), then Numbers, each a page at a time. */
export function homeView(input: {
  agents?: AgentsPage;
  numbers?: NumbersPage;
  role: Role;
  sandbox: boolean;
  position: HomePosition;
  error?: string;
  /** The settings in force: whom a viewer asks, and the guardrails, shown under the role (in the same block). */
  inForce?: PoliciesInForce;
}): HomeView {
  const { agents, numbers, role } = input;
  const filter = input.position.numbersFilter;
  const filtered = Object.keys(filter).length > 0 && (numbers?.total ?? 0) > 0;
  const numberTools = [
    numbersFilterSelect(filter),
    ...(can(role, 'operator') ? [buyNumberButton(), button({ text: 'Map a number', actionId: ACTION.mapNumber })] : []),
    // The bulk tools, where the lists are: the numbers the filter shows, all at once; a routing text; the export.
    ...(can(role, 'operator') && filtered
      ? [button({ text: 'Map these to an agent…', actionId: ACTION.mapFiltered, value: JSON.stringify(filter) })]
      : []),
    ...(can(role, 'operator') ? [button({ text: 'Plan routing…', actionId: ACTION.planRouting })] : []),
    button({ text: 'Export routing', actionId: ACTION.exportRouting }),
  ];
  const blocks: KnownBlock[] = [
    ...(input.sandbox ? [section(SANDBOX_WARNING)] : []),
    ...(input.error === undefined
      ? []
      : [section(`:warning: Could not read the provider: ${escapeMrkdwn(input.error)}`)]),
    header('Voice AI'),
    ...(agents
      ? [
          agentsIntro(agents, role, AGENTS_SUBTITLE),
          ...agentRows(agents.items, role),
          ...listPager(agents, 'agent', PAGE.homeAgents),
        ]
      : []),
    divider(),
    header('Numbers'),
    ...(numbers ? [numbersIntro(numbers, NUMBERS_SUBTITLE)] : []),
    actions(numberTools),
    ...(numbers ? [...numberRows(numbers.items, role), ...listPager(numbers, 'number', PAGE.homeNumbers)] : []),
    divider(),
    // Admins change the settings from here; everyone else reads them, to know the rules and whom to ask.
    ...(input.inForce
      ? [
          header('Settings'),
          ...settingsSummary({ settings: input.inForce.policy, locks: input.inForce.locks }, can(role, 'admin')),
        ]
      : []),
    context(ruleLines(role, input.inForce).join('\n')),
  ];
  const metadata = JSON.stringify(input.position);
  if (metadata.length > LIMITS.privateMetadata) throw new RangeError(`Home private_metadata of ${metadata.length}`);
  return { type: 'home', private_metadata: metadata, blocks };
}
