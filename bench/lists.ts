// Lists at the size every list must serve in full: 10,000 purchased numbers and 1,000 agents, in a sandbox of their
// own, read by a Voice Ops process of its own. Each figure runs from sending the request to its answer at the fake
// Slack: a command's or a paging button's response_url post, the Home tab's views.publish, a type-ahead's ack.
// Requests go one after another, as one person pages. The walks press Next from page 2 to the last page, so that
// every number and every agent is reached. Last, while one person keeps reading the lists afresh, filtering them and
// opening the Home tab, others send `/voice help` at a steady pace: their acknowledgements must not wait behind the
// work on those lists.
import { INPUT, PAGE } from '../src/slack/ids.js';
import { AGENTS_PAGE_SIZE } from '../src/slack/views/agents.js';
import { NUMBERS_PAGE_SIZE } from '../src/slack/views/numbers.js';
import type { AppReady } from './app-process.js';
import { ADMIN, OPERATOR, SCALE, SIGNING_SECRET } from './constants.js';
import type { Child } from './ipc.js';
import { runPaced } from './paced.js';
import { type Distribution, distribution } from './stats.js';
import type { ListTiming, StubsReady } from './stubs-process.js';

export interface ListRow {
  what: string;
  samples: number;
  ack: Distribution;
  answer: Distribution;
  /** The sum of the answers: for a walk, the time to reach every item. */
  totalMs: number;
}

/** `/voice help` acknowledgements while another person pages: the list work must not hold them up. */
export interface AcksWhilePaging {
  /** Commands per second, sent at a steady pace. */
  rate: number;
  ack: Distribution;
  /** List requests (fresh reads, filters, Home tabs) answered meanwhile. */
  listRequests: number;
}

export interface ListsResult {
  rows: ListRow[];
  whilePaging: AcksWhilePaging;
}

/** Paced `/voice help` while the lists are read: fast enough for a p99 of a few hundred samples, far below capacity. */
const PAGING_HELP_RATE = 50;

/** Sent once each, untimed, before the rows. */
const WARM_UP: Ask[] = [{ kind: 'command', text: 'numbers' }, { kind: 'command', text: 'agents' }, { kind: 'home' }];

/** What the stub process sends (see its `list` request); the user is the admin unless given. */
interface Ask {
  kind: 'command' | 'button' | 'home' | 'typing';
  userId?: string;
  text?: string;
  actionId?: string;
  blockId?: string;
  value?: string;
  nextActionId?: string;
}

function row(what: string, timings: ListTiming[]): ListRow {
  return {
    what,
    samples: timings.length,
    ack: distribution(timings.map((timing) => timing.ackMs)),
    answer: distribution(timings.map((timing) => timing.answerMs)),
    totalMs: timings.reduce((sum, timing) => sum + timing.answerMs, 0),
  };
}

export async function measureLists(
  stubs: Child<StubsReady>,
  app: Child<AppReady>,
  options: { samples: number; pagingSeconds: number; log: (line: string) => void },
): Promise<ListsResult> {
  const eventsUrl = `${app.ready.url}/slack/events`;
  const send = (ask: Ask) =>
    stubs.request<ListTiming>(
      { op: 'list', eventsUrl, signingSecret: SIGNING_SECRET, timeoutMs: 30_000, userId: ADMIN, ...ask },
      35_000,
    );
  const repeat = async (ask: Ask): Promise<ListTiming[]> => {
    const timings: ListTiming[] = [];
    for (let i = 0; i < options.samples; i++) timings.push(await send(ask));
    return timings;
  };
  /** Presses Next from the first page's button to the last page; one timing per page turned. */
  const walk = async (first: ListTiming | undefined, next: string): Promise<ListTiming[]> => {
    const timings: ListTiming[] = [];
    for (let value = first?.next; value !== undefined; ) {
      const turned = await send({ kind: 'button', actionId: next, value, nextActionId: next });
      timings.push(turned);
      value = turned.next;
    }
    return timings;
  };
  const numberPages = Math.ceil(SCALE.numbers / NUMBERS_PAGE_SIZE);
  const agentPages = Math.ceil(SCALE.agents / AGENTS_PAGE_SIZE);

  // The process is new: its first commands would time the compiler and the first reads, not the lists' work.
  for (const ask of WARM_UP) await send(ask);

  const rows: ListRow[] = [];
  options.log(`lists: /voice numbers and its ${numberPages} pages, a digits filter`);
  const numbers = await repeat({ kind: 'command', text: 'numbers', nextActionId: PAGE.numbers.next });
  rows.push(row(`\`/voice numbers\`: page 1 of ${numberPages}, the provider's list read afresh`, numbers));
  const numbersWalk = await walk(numbers.at(-1), PAGE.numbers.next);
  rows.push(row(`Next through pages 2 to ${numbersWalk.length + 1} (the list kept)`, numbersWalk));
  rows.push(
    row('`/voice numbers 415`: a digits filter, read afresh', await repeat({ kind: 'command', text: 'numbers 415' })),
  );

  options.log(`lists: /voice agents and its ${agentPages} pages, the Home tab`);
  const agents = await repeat({ kind: 'command', text: 'agents', nextActionId: PAGE.agents.next });
  rows.push(row(`\`/voice agents\`: page 1 of ${agentPages}, the provider's agent list read afresh`, agents));
  const agentsWalk = await walk(agents.at(-1), PAGE.agents.next);
  rows.push(row(`Next through pages 2 to ${agentsWalk.length + 1} (the list kept)`, agentsWalk));
  rows.push(row('Home tab opened: agents and numbers, both lists read afresh', await repeat({ kind: 'home' })));

  options.log('lists: the map form’s type-ahead pickers');
  const typing = (text: string, input: { block: string; action: string }) =>
    repeat({ kind: 'typing', userId: OPERATOR, text, actionId: input.action, blockId: input.block });
  rows.push(row('map form, number picker opened (first 100 unrouted)', await typing('', INPUT.mapNumber)));
  rows.push(row('map form, number picker, 7 digits typed', await typing('5550123', INPUT.mapNumber)));
  rows.push(row('map form, agent picker, a name typed', await typing('Agent 0777', INPUT.mapAgent)));

  options.log(`lists: /voice help at ${PAGING_HELP_RATE}/s while another person pages, ${options.pagingSeconds} s`);
  const paging: Ask[] = [
    { kind: 'command', text: 'numbers' },
    { kind: 'command', text: 'numbers unrouted 415' },
    { kind: 'command', text: 'agents' },
    { kind: 'home' },
  ];
  let listRequests = 0;
  let helpDone = false;
  const pager = (async () => {
    while (!helpDone) await send(paging[listRequests++ % paging.length] as Ask);
  })();
  const help = await runPaced({
    url: app.ready.url,
    connections: 4,
    seconds: options.pagingSeconds,
    text: 'help',
    userId: ADMIN,
    responseUrl: stubs.ready.responseUrl,
    signingSecret: SIGNING_SECRET,
    rate: PAGING_HELP_RATE,
  }).finally(() => {
    helpDone = true;
  });
  await pager;
  return { rows, whilePaging: { rate: PAGING_HELP_RATE, ack: help.latency, listRequests } };
}
