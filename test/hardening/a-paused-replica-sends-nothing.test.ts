// A replica paused (SIGSTOP: a VM frozen, a process stopped, a long stall) while its change waits to be sent again
// keeps its liveness, since its database session stays open; but the change's leases lapse, another replica's
// reconciler settles the change, and on waking the paused replica sends nothing: the provider gets the change once,
// the audit has one outcome, and the requester is told what became of it, and nothing else. What the pause can hide:
// a request already at the provider that the provider carries out late meets the outcome already recorded, and is
// refused in the open.
import { describe, expect, it } from 'vitest';
import type { RouteName } from '../../src/sandbox/server.js';
import { ACTION } from '../../src/slack/ids.js';
import { type Block, EPHEMERAL, onlyButton, shownText } from '../e2e/support.js';
import { ADMIN, BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { metricValue } from '../harness/metrics.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  answersTo,
  availableNumber,
  inspectDatabase,
  providerCall,
  purchased,
  type Replica,
  reached,
  startReplicas,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-paused-', [BOT_TOKEN, SIGNING_SECRET]);

// Leases lapse 2 s into a pause; the reconciler looks every second, and settles a change once its leases lapsed more
// than twice the provider's timeout ago. The provider asks for a wait longer than all of that.
const PAUSABLE = { LEASE_TTL_S: '2', VOICE_API_TIMEOUT_MS: '500', RECONCILE_INTERVAL_S: '1', VOICE_ADMINS: ADMIN };
const RETRY_AFTER_S = 8;
const SETTLED_MS = 30_000;
/** How far a replica's log time and the database's clock it carries may differ on one host. */
const CLOCKS_AGREE_MS = 50;

let asked = 0;

/** `/voice TEXT` by `user` through `app`, confirmed: the response_url id the answers to the confirmation go to. */
async function confirmed(app: Replica, user: string, text: string): Promise<string> {
  const post = async (body: string) =>
    expect((await postToSlackApp(app.eventsUrl, SIGNING_SECRET, body)).status).toBe(200);
  const promptId = `paused-ask-${++asked}`;
  await post(slashCommand({ text, userId: user, responseUrl: bed.slack.respondUrl(promptId) }));
  const prompt = await bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === promptId);
  const answers = `paused-confirm-${asked}`;
  const value = onlyButton((prompt.body.blocks ?? []) as Block[], ACTION.confirmChange);
  await post(
    blockAction({
      userId: user,
      actionId: ACTION.confirmChange,
      value,
      container: EPHEMERAL,
      responseUrl: bed.slack.respondUrl(answers),
    }),
  );
  return answers;
}

interface Scene {
  route: RouteName;
  action: string;
  /** Sets the provider up, asks for the change through `app` and confirms it: the response_url id of its answers. */
  start(app: Replica): Promise<string>;
  /** What the reconciler tells the requester of the change not made. */
  saysNot: RegExp;
}

type Kind = 'buy' | 'release' | 'delete';

function scene(kind: Kind): Scene {
  switch (kind) {
    case 'buy':
      return {
        route: 'buyNumber',
        action: 'number.buy',
        start: async (app) => confirmed(app, OPERATOR, `numbers buy ${await availableNumber(bed.sandbox, 'FR')}`),
        saysNot: /was not bought/,
      };
    case 'release':
      return {
        route: 'releaseNumber',
        action: 'number.release',
        async start(app) {
          const number = await availableNumber(bed.sandbox, 'ES');
          await providerCall(bed.sandbox, 'POST', '/buy-phone-number', { number });
          return confirmed(app, ADMIN, `numbers release ${number}`);
        },
        saysNot: /was not released/,
      };
    case 'delete':
      return {
        route: 'deleteAgent',
        action: 'agent.delete',
        async start(app) {
          const agent = await providerCall(bed.sandbox, 'POST', '/ai-agents', {
            name: 'Paused desk',
            language: 'en-US',
          });
          return confirmed(app, ADMIN, `agents delete ${String(agent.id)}`);
        },
        saysNot: /was not deleted/,
      };
  }
}

/** Once `app` has logged a line starting with `message`. */
const logged = (app: Replica, message: string) =>
  until(
    () => Promise.resolve(app.entries().some((entry) => String(entry.msg).startsWith(message))),
    Boolean,
    `the log line "${message}"`,
    SETTLED_MS,
  );

/** Pauses `app` until `meanwhile` has ended, then lets it go on. */
async function paused<T>(app: Replica, meanwhile: () => Promise<T>): Promise<T> {
  app.child.kill('SIGSTOP');
  try {
    return await meanwhile();
  } finally {
    app.child.kill('SIGCONT');
  }
}

/** The reconciler's message to the requester on `answers`. */
const reconciled = (answers: string) =>
  bed.slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === answers && shownText(call).includes('checked with the provider'),
    { timeoutMs: SETTLED_MS },
  );

/** The answer the paused replica gives on `answers` once it goes on. */
const answerOfPaused = (answers: string, says: string) =>
  bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === answers && shownText(call).includes(says), {
    timeoutMs: SETTLED_MS,
  });

/**
 * The audit rows of the one change of `action` the test asked for, by its correlation id: the setup made at the
 * provider directly is audited apart, as changes made outside Voice Ops.
 */
async function rowsOfChange(action: string) {
  const { events } = await inspectDatabase(bed.database);
  const asked = events.find((event) => event.action === action && event.outcome === 'requested');
  return events.filter((event) => event.correlationId === asked?.correlationId);
}

const step = (row: { action: string; outcome: string }) => `${row.action} ${row.outcome}`;

describe.each<Kind>(['buy', 'release', 'delete'])('a replica paused while its %s waits out a 429', (kind) => {
  it('sends nothing once it goes on, and leaves the outcome to the reconciler of the other replica', async () => {
    const change = scene(kind);
    const [a] = await startReplicas(bed, 2, PAUSABLE);
    if (!a) throw new Error('two replicas');
    bed.sandbox.faults.inject(change.route, { type: 'rate_limit', retryAfterSeconds: RETRY_AFTER_S }, { times: 1 });
    const sent = bed.sandbox.requestCount(change.route);
    const answers = await change.start(a);
    await reached(bed.sandbox, change.route, sent);
    // Paused while it waits to send the change again, as the provider asked.
    await until(
      () => a.entries().some((entry) => entry.msg === 'provider request' && entry.status === 429),
      Boolean,
      'the 429 to reach the replica',
    );

    const told = await paused(a, () => reconciled(answers));
    expect(shownText(told)).toMatch(change.saysNot);

    // On waking it finds its leases lapsed, on its own clock, before it sends anything.
    const own = await answerOfPaused(answers, 'Nothing more was sent to the provider');
    expect(shownText(own)).toContain('(it may have been paused)');
    expect(shownText(own)).toContain('It was settled meanwhile by checking with the provider: it was not done.');
    await logged(a, 'a change was not sent to the provider: its leases lapsed');
    expect(bed.sandbox.requestCount(change.route) - sent, 'the 429 alone reached the provider').toBe(1);
    expect(await metricValue(a.eventsUrl.replace('/slack/events', ''), 'voice_ops_changes_withheld_total')).toBe(1);

    const rows = await rowsOfChange(change.action);
    expect(rows.map(step)).toEqual([
      `${change.action} requested`,
      `${change.action} confirmed`,
      `${change.action} failed`,
    ]);
    expect(rows.at(-1)?.params).toMatchObject({ reconciled: true });
    // Told the outcome once, by the reconciler; nothing the requester read says the change was made.
    const said = answersTo(bed.slack, answers);
    expect(said.filter((text) => text.includes('checked with the provider'))).toHaveLength(1);
    expect(said.filter((text) => /Bought|Released|Deleted agent/.test(text))).toEqual([]);
  });
});

it('a buy at the provider when its replica paused, carried out late, is refused as a second outcome in the open', async () => {
  const [a, b] = await startReplicas(bed, 2, PAUSABLE);
  if (!a || !b) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'IT');
  bed.sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });
  const sent = bed.sandbox.requestCount('buyNumber');
  const answers = await confirmed(a, OPERATOR, `numbers buy ${number}`);
  await reached(bed.sandbox, 'buyNumber', sent);

  await paused(a, async () => {
    // Settled as not done while the provider still holds the request, which it then carries out.
    expect(shownText(await reconciled(answers))).toMatch(/was not bought/);
    // Only once the lapsed lease was older than the longest its request could still be under way: twice the timeout.
    const lease = await (await bed.database.sql()).get<{ expires_at: string }>(
      "SELECT expires_at FROM leases WHERE name LIKE 'change:%'",
    );
    const settled = b.entries().find((entry) => entry.msg === 'reconciled a change the app did not see to its end');
    const lapsedFor = Date.parse(String(settled?.time)) - Date.parse(String(lease?.expires_at));
    expect(lapsedFor).toBeGreaterThanOrEqual(2 * Number(PAUSABLE.VOICE_API_TIMEOUT_MS) - CLOCKS_AGREE_MS);
    bed.sandbox.faults.clear();
    await until(
      () => purchased(bed.sandbox),
      (numbers) => numbers.includes(number),
      'the late buy',
    );
  });

  const own = await answerOfPaused(answers, 'settled meanwhile as not done');
  expect(shownText(own)).toContain("the provider's answer said done");
  await logged(a, 'a second outcome of one change was refused');
  const refused = 'voice_ops_second_outcomes_refused_total{action="number.buy"}';
  expect(await metricValue(a.eventsUrl.replace('/slack/events', ''), refused)).toBe(1);
  const rows = await rowsOfChange('number.buy');
  expect(rows.map(step)).toEqual([
    'number.buy requested',
    'number.buy confirmed',
    'number.buy failed',
    'change.second_outcome rejected',
  ]);
  expect(rows.at(-1)?.params).toEqual({ change: 'number.buy', recorded: 'failed', refused: 'succeeded' });
  expect(bed.sandbox.requestCount('buyNumber') - sent).toBe(1);
});

it("a replica paused while its reconciler sends a map again sends nothing on waking: the other replica's reconciler took the background lease over", async () => {
  const replicas = await startReplicas(bed, 2, PAUSABLE);
  // The replica that runs the background work, and the other.
  const runsPasses = (app: Replica) =>
    app.entries().some((entry) => entry.msg === 'this replica runs the background work');
  const [h, o] = await until(
    () => Promise.resolve(replicas.filter(runsPasses)),
    (holding) => holding.length === 1,
    'one replica to run the background work',
  ).then(([holder]) => [holder, replicas.find((app) => app !== holder)]);
  if (!h || !o) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'NL');
  await providerCall(bed.sandbox, 'POST', '/buy-phone-number', { number });
  const agent = String(
    (await providerCall(bed.sandbox, 'POST', '/ai-agents', { name: 'Resent desk', language: 'en-GB' })).id,
  );
  // The map's answer is lost twice, so its outcome is unknown; the reconciler's resend then waits out a 429.
  bed.sandbox.faults.inject('mapNumber', { type: 'lose_answer' }, { times: 2 });
  bed.sandbox.faults.inject('mapNumber', { type: 'rate_limit', retryAfterSeconds: RETRY_AFTER_S }, { times: 1 });
  const sent = bed.sandbox.requestCount('mapNumber');
  const answers = `paused-map-${++asked}`;
  const command = slashCommand({
    text: `map ${number} ${agent}`,
    userId: OPERATOR,
    responseUrl: bed.slack.respondUrl(answers),
  });
  expect((await postToSlackApp(o.eventsUrl, SIGNING_SECRET, command)).status).toBe(200);
  await answerOfPaused(answers, 'UNKNOWN');
  // Paused while its reconciler waits to send the map again, as the provider asked.
  await until(
    () => h.entries().some((entry) => entry.msg === 'provider request' && entry.status === 429),
    Boolean,
    "the 429 to reach the reconciler's replica",
  );
  expect(bed.sandbox.requestCount('mapNumber') - sent).toBe(3);

  // The other replica takes the background lease over once it lapsed, sends the map again and settles it.
  const told = await paused(h, () => reconciled(answers));
  expect(shownText(told)).toContain(number);
  expect(bed.sandbox.requestCount('mapNumber') - sent).toBe(4);

  // On waking its pass finds the background lease it began under lapsed, on its own clocks, and stops unsent.
  const woke = await until(
    () => ({
      stopped: h.entries().some((entry) => String(entry.msg).startsWith('a reconciliation pass stopped')),
      maps: bed.sandbox.requestCount('mapNumber') - sent,
    }),
    (seen) => seen.stopped || seen.maps > 4,
    'the paused reconciler to stop, or send',
    SETTLED_MS,
  );
  expect(woke.maps, 'nothing more reached the provider').toBe(4);
  await logged(h, 'a reconciliation pass stopped: the background lease it began under may have lapsed');
  await logged(h, 'a change was not sent to the provider');
  expect(await metricValue(h.eventsUrl.replace('/slack/events', ''), 'voice_ops_changes_withheld_total')).toBe(1);
  const rows = await rowsOfChange('routing.map');
  expect(rows.map(step)).toEqual(['routing.map requested', 'routing.map unknown', 'routing.map succeeded']);
  expect(rows.at(-1)?.params).toMatchObject({ reconciled: true });
});

it('a replica that is not paused waits out a 429 longer than its leases, renewing them meanwhile, and buys once', async () => {
  const [a] = await startReplicas(bed, 2, PAUSABLE);
  if (!a) throw new Error('two replicas');
  const number = await availableNumber(bed.sandbox, 'DE');
  const wait = { type: 'rate_limit', retryAfterSeconds: 2 * Number(PAUSABLE.LEASE_TTL_S) } as const;
  bed.sandbox.faults.inject('buyNumber', wait, { times: 1 });
  const sent = bed.sandbox.requestCount('buyNumber');
  const answers = await confirmed(a, OPERATOR, `numbers buy ${number}`);

  expect(shownText(await answerOfPaused(answers, 'Bought'))).toContain(`Bought *${number}*`);
  expect(bed.sandbox.requestCount('buyNumber') - sent).toBe(2);
  expect((await rowsOfChange('number.buy')).map(step)).toEqual([
    'number.buy requested',
    'number.buy confirmed',
    'number.buy succeeded',
  ]);
});
