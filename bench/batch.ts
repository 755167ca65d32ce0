// Batches of 1,000 maps: a Voice Ops process of its own, on a sandbox seeded with purchased numbers and two agents,
// the provider answering every request 50 ms late. Each plan is asked for, its Apply pressed (a signed block_actions
// request, as Slack sends it), and timed until the result message ("Routed 1,000 of 1,000 numbers") reaches the
// click's response_url, against the floor of items × latency ÷ BATCH_CONCURRENCY: the provider's answers alone, that
// many at a time. The app process's CPU time over the same span (its `cpu` request, as the ack runs take it), per
// item. On a SQLite file, then on a Postgres database of a server of its own, started as bench/engines.ts starts one
// (skipped when Postgres is not installed); BATCH.runs processes on each, the targets judging the medians of their
// third batches.
//
// Each process applies three batches: `/voice map unrouted to AGENT_A`, its first work of all, then `/voice map agent
// AGENT_A to AGENT_B` and back, which move the same numbers (re-routes: each item also carries the agent it leaves,
// so the judged batch is the heavier kind). The earlier batches pay for V8 compiling the app's path
// as it gets hot (by --trace-opt, on Postgres: 190 functions and 0.64 s of compiling during a first batch, 100 and
// 0.5 s during a second, 50 and 0.2 s during a third); the third is nearer the process as it runs for hours, and the
// one the targets judge. The others are reported.
//
// The sandbox, and the fake Slack that receives the response_url posts, run in this process, the parent's: nothing
// else is measured meanwhile, and their work stays out of the app's CPU.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BATCH_CONCURRENCY } from '../src/ops/batches.js';
import { ProviderClient } from '../src/provider/client.js';
import { type Sandbox, startSandbox } from '../src/sandbox/server.js';
import { ACTION } from '../src/slack/ids.js';
import { type FakeSlack, RESPONSE_URL, type SlackCall, startFakeSlack } from '../test/harness/fake-slack.js';
import { blockAction, OPS_CHANNEL, slashCommand } from '../test/harness/payloads.js';
import { createDatabase, POSTGRES_MISSING, postgresBinaries, startPostgres } from '../test/harness/postgres.js';
import { timedAnswer } from './answers.js';
import type { AppReady, LoopDelay } from './app-process.js';
import { buttonValue } from './blocks.js';
import { OPERATOR } from './constants.js';
import { type Child, type ChildOutput, REPO_ROOT } from './ipc.js';
import { median, round } from './stats.js';
import { type Target, table, verdict } from './table.js';

export const BATCH = {
  /** Maps in the batch: the most one plan may hold. */
  items: 1000,
  /** Added by the sandbox to every request from the plan on. */
  latencyMs: 50,
  /**
   * Processes per engine, each with a new sandbox and database: the targets judge the medians of their third
   * batches, since one batch's CPU time swings by a quarter from one run to the next on a shared 2-core machine.
   */
  runs: 3,
} as const;

export const BATCH_LIMITS = {
  /** Apply → result over the floor of items × latency ÷ BATCH_CONCURRENCY. */
  floorRatio: 1.2,
  /** The app process's CPU time over the batch, per item. */
  cpuMsPerItem: 2,
} as const;

const ENGINE_NAME = { sqlite: 'SQLite', postgres: 'Postgres' } as const;
export type BatchEngine = keyof typeof ENGINE_NAME;

/** A process's batches in turn: the first of its life, then two that move the numbers the first routed. */
const TURNS = ['first', 'second', 'third'] as const;
export type BatchTurn = (typeof TURNS)[number];
/** The batch the targets judge: by then V8 has compiled most of the path the first two made hot. */
const JUDGED: BatchTurn = 'third';

export interface BatchRow {
  engine: BatchEngine;
  /** 1…BATCH.runs. */
  run: number;
  turn: BatchTurn;
  /** Items the plan listed to route. */
  items: number;
  /** "Routed N of M" in the result message. */
  routed: number;
  of: number;
  latencyMs: number;
  concurrency: number;
  /** items × latency ÷ concurrency, ms. */
  floorMs: number;
  /** The command sent → the plan at the fake Slack, ms (not a target: the provider's lists read at 50 ms each). */
  planMs: number;
  /** Apply pressed → the result message at the fake Slack, ms. */
  ms: number;
  floorRatio: number;
  /** The app process's CPU time (user + system) from just before the press to the result, ms. */
  appCpuMs: number;
  cpuMsPerItem: number;
  /** mapNumber requests the sandbox received during the batch. */
  providerMaps: number;
  /** Posts to the click's response_url: "Working on it…", the progress rewrites, the result. */
  posts: number;
  /**
   * How late the app's event loop ran timers during the batch, ms, by the app's own gauges: a synchronous stall
   * delays every item.
   */
  appLoopDelay: LoopDelay;
  /** The machine's 1-minute load average at the result: other work on the two cores slows the batch. */
  loadAverage: number;
}

export interface BatchResult {
  rows: BatchRow[];
  /** Why there is no Postgres row. */
  skipped?: string;
}

export interface BatchOptions {
  /** A new Voice Ops process on the sandbox at `sandboxUrl`, on a SQLite file or the Postgres database given. */
  startApp(sandboxUrl: string, databaseUrl?: string): Promise<Child<AppReady>>;
  /** The API key the app is started with. */
  sandboxKey: string;
  log(line: string): void;
}

/** The batch on each engine, and what each app process wrote. */
export async function measureBatch(
  options: BatchOptions,
): Promise<{ batch: BatchResult; output: Record<string, ChildOutput> }> {
  const slack = await startFakeSlack();
  const rows: BatchRow[] = [];
  const output: Record<string, ChildOutput> = {};
  const runs = async (engine: BatchEngine, database: () => Promise<string | undefined>) => {
    options.log(
      `batch: ${BATCH.items} maps on ${ENGINE_NAME[engine]}, the provider ${BATCH.latencyMs} ms a request, ` +
        `${BATCH_CONCURRENCY} at a time, ${BATCH.runs} processes of ${TURNS.length} batches each`,
    );
    for (let run = 1; run <= BATCH.runs; run++) {
      const measured = await batchesOfOneProcess(options, slack, engine, run, await database());
      output[`batch (${ENGINE_NAME[engine]}, run ${run})`] = measured.output;
      rows.push(...measured.rows);
      const each = measured.rows.map(
        (row) =>
          `${row.turn} ${(row.ms / 1000).toFixed(2)} s (${row.floorRatio.toFixed(2)}×), ${row.cpuMsPerItem.toFixed(2)} ms CPU/item`,
      );
      options.log(`  ${each.join('; ')}`);
    }
  };
  try {
    await runs('sqlite', async () => undefined);
    if (postgresBinaries() === undefined) return { batch: { rows, skipped: POSTGRES_MISSING }, output };
    const server = await startPostgres();
    try {
      await runs('postgres', () => createDatabase(server.url()));
    } finally {
      await server.remove();
    }
    return { batch: { rows }, output };
  } finally {
    await slack.close();
  }
}

async function batchesOfOneProcess(
  options: BatchOptions,
  slack: FakeSlack,
  engine: BatchEngine,
  run: number,
  databaseUrl?: string,
): Promise<{ rows: BatchRow[]; output: ChildOutput }> {
  // Seeded a region at a time in turn (12 regions), from an inventory with room for them all.
  const sandbox = await startSandbox({
    port: 0,
    apiKey: options.sandboxKey,
    numbersPerRegion: Math.ceil(BATCH.items / 10),
    seed: { agents: 2, numbers: BATCH.items },
  });
  let app: Child<AppReady> | undefined;
  try {
    const client = new ProviderClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    const [agents, purchased] = await Promise.all([client.listAgents(), client.listPurchasedNumbers()]).finally(() =>
      client.close(),
    );
    const [a, b] = agents;
    if (!a || !b || purchased.length !== BATCH.items) throw new Error('the batch sandbox was not seeded as asked');
    app = await options.startApp(sandbox.url, databaseUrl);
    sandbox.faults.setLatency(BATCH.latencyMs);
    const apply = applier({ app, sandbox, slack, send: sender(slack, `${app.ready.url}/slack/events`, engine, run) });
    const commands: Record<BatchTurn, string> = {
      first: `map unrouted to ${a.id}`,
      second: `map agent ${a.id} to ${b.id}`,
      third: `map agent ${b.id} to ${a.id}`,
    };
    const rows: BatchRow[] = [];
    for (const turn of TURNS) rows.push({ engine, run, turn, ...(await apply(commands[turn])) });
    await app.stop();
    return { rows, output: app.output() };
  } finally {
    await app?.stop();
    await sandbox.close();
  }
}

/** Plans a batch of BATCH.items maps with `text`, and measures its Apply. */
function applier(on: { app: Child<AppReady>; sandbox: Sandbox; slack: FakeSlack; send: ReturnType<typeof sender> }) {
  const { app, sandbox, slack, send } = on;
  const command = (text: string) => (responseUrl: string) => slashCommand({ text, userId: OPERATOR, responseUrl });
  return async (text: string): Promise<Omit<BatchRow, 'engine' | 'run' | 'turn'>> => {
    const plan = await send(command(text), () => true);
    const batchId = buttonValue(plan.body, ACTION.confirmBatch);
    const toRoute = `${BATCH.items.toLocaleString('en-US')} numbers to route`;
    if (batchId === undefined || !plan.text.includes(toRoute)) {
      throw new Error(`the plan is not of ${BATCH.items} maps: ${plan.text.slice(0, 1000)}`);
    }

    const mapsBefore = sandbox.requestCount('mapNumber');
    const floorMs = (BATCH.items * BATCH.latencyMs) / BATCH_CONCURRENCY;
    await appLoopLag(app.ready.url); // read, and so begun afresh
    const cpuBefore = await app.request<number>({ op: 'cpu' });
    const result = await send(
      (responseUrl) =>
        blockAction({
          userId: OPERATOR,
          actionId: ACTION.confirmBatch,
          value: batchId,
          container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
          responseUrl,
        }),
      // Neither "Working on it…" nor a progress rewrite ("37 of 1,000 done"): the batch's end, or a refusal.
      (call) => !/Working on it|Checking the plan|of [\d,]+ done/.test(textOf(call)),
      floorMs * 5 + 60_000,
    );
    const cpuAfter = await app.request<number>({ op: 'cpu' });
    const appLoopDelay = await appLoopLag(app.ready.url);
    const routed = /Routed ([\d,]+) of ([\d,]+) numbers?/.exec(result.text);
    if (!routed) throw new Error(`the batch ended without "Routed N of M": ${result.text.slice(0, 1000)}`);
    const appCpuMs = cpuAfter - cpuBefore;
    return {
      items: BATCH.items,
      routed: Number(routed[1]?.replaceAll(',', '')),
      of: Number(routed[2]?.replaceAll(',', '')),
      latencyMs: BATCH.latencyMs,
      concurrency: BATCH_CONCURRENCY,
      floorMs,
      planMs: plan.ms,
      ms: result.ms,
      floorRatio: result.ms / floorMs,
      appCpuMs,
      cpuMsPerItem: appCpuMs / BATCH.items,
      providerMaps: sandbox.requestCount('mapNumber') - mapsBefore,
      posts: slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === result.responseUrlId).length,
      appLoopDelay,
      loadAverage: loadavg()[0] ?? Number.NaN,
    };
  };
}

/**
 * The app's own event-loop lag gauges since they were last read (prom-client's, which begin again at each read), ms:
 * the batch's app runs without the bench's monitor, whose timer would add its own CPU time to the batch's.
 */
async function appLoopLag(appUrl: string): Promise<LoopDelay> {
  const text = await (await fetch(`${appUrl}/metrics`)).text();
  const gauge = (name: string) => {
    const value = new RegExp(`^voice_ops_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`/metrics has no eventloop_lag_${name}_seconds`);
    return Number(value) * 1000;
  };
  return { p50: gauge('p50'), p99: gauge('p99'), max: gauge('max') };
}

/** What a person reads of a post: its text and its blocks. */
const textOf = (call: SlackCall) => JSON.stringify(call.body);

/** Sends signed requests to `eventsUrl`, each with a response_url of its own, timed to their accepted answers. */
function sender(slack: FakeSlack, eventsUrl: string, engine: BatchEngine, run: number) {
  let sent = 0;
  return async (body: (responseUrl: string) => string, accept: (call: SlackCall) => boolean, timeoutMs = 60_000) => {
    const responseUrlId = `batch-${engine}-${run}-${++sent}`;
    return { ...(await timedAnswer(slack, eventsUrl, responseUrlId, body, accept, timeoutMs)), responseUrlId };
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/**
 * Each engine's targets, judged on the medians of its processes' third batches; every batch must have routed every
 * item. The earlier batches' medians are reported beside them.
 */
export function batchTargets(batch: BatchResult): Target[] {
  const engines = [...new Set(batch.rows.map((row) => row.engine))];
  return engines.flatMap((engine): Target[] => {
    const of = (turn: BatchTurn) => batch.rows.filter((row) => row.engine === engine && row.turn === turn);
    const judged = of(JUDGED);
    const [one] = judged;
    if (!one) return [];
    const name = (turn: BatchTurn, rows: BatchRow[]) =>
      `a batch of ${one.items.toLocaleString('en-US')} maps, ${ENGINE_NAME[engine]}, a process's ${turn}, median of ${rows.length}`;
    const time = (rows: BatchRow[]) => median(rows.map((row) => row.ms));
    const ratio = (rows: BatchRow[]) => time(rows) / one.floorMs;
    const cpu = (rows: BatchRow[]) => median(rows.map((row) => row.cpuMsPerItem));
    const runs = (rows: BatchRow[]) => rows.map((row) => row.cpuMsPerItem.toFixed(2)).join(', ');
    const unrouted = batch.rows.filter(
      (row) => row.engine === engine && (row.routed !== row.items || row.of !== row.items),
    );
    const floorLimit = `≤ ${BATCH_LIMITS.floorRatio}× floor (${seconds(one.floorMs)})`;
    const cpuLimit = `≤ ${BATCH_LIMITS.cpuMsPerItem} ms`;
    const reported = TURNS.filter((turn) => turn !== JUDGED).map(
      (turn): Target => ({
        name: `${name(turn, of(turn))}: Apply → result, app CPU per item`,
        limit: `${floorLimit}, ${cpuLimit}`,
        measured: `${ratio(of(turn)).toFixed(2)}×, ${cpu(of(turn)).toFixed(2)} ms (runs: ${runs(of(turn))})`,
        pass: undefined,
      }),
    );
    return [
      {
        name: `${name(JUDGED, judged)}: Apply → result`,
        limit: floorLimit,
        measured:
          `${seconds(time(judged))} (${ratio(judged).toFixed(2)}×)` +
          (unrouted.length
            ? `, ${unrouted.length} batch(es) did not route every item`
            : ', every batch routed every item'),
        pass: ratio(judged) <= BATCH_LIMITS.floorRatio && unrouted.length === 0,
      },
      {
        name: `${name(JUDGED, judged)}: app CPU per item`,
        limit: cpuLimit,
        measured: `${cpu(judged).toFixed(2)} ms (runs: ${runs(judged)})`,
        pass: cpu(judged) <= BATCH_LIMITS.cpuMsPerItem,
      },
      ...reported,
    ];
  });
}

export function renderBatch(batch: BatchResult): string[] {
  return [
    `Batches of ${BATCH.items.toLocaleString('en-US')} maps, ${TURNS.length} in each process: Apply pressed → the ` +
      `result message at the fake Slack (the provider ${BATCH.latencyMs} ms a request; floor = items × latency ÷ ` +
      `${BATCH_CONCURRENCY} at a time). The targets judge the ${JUDGED} batches: the earlier ones pay for V8 ` +
      'compiling the path as it gets hot.',
    table(
      [
        'engine',
        'run',
        'batch',
        'plan',
        'Apply → result',
        'floor',
        '× floor',
        'app CPU',
        'CPU ms/item',
        "app's loop lag p99 / max",
        'provider maps',
        'routed',
        'posts',
        'load avg',
      ],
      batch.rows.map((row) => [
        ENGINE_NAME[row.engine],
        String(row.run),
        row.turn,
        seconds(row.planMs),
        seconds(row.ms),
        seconds(row.floorMs),
        `${row.floorRatio.toFixed(2)}×`,
        seconds(row.appCpuMs),
        row.cpuMsPerItem.toFixed(3),
        `${row.appLoopDelay.p99.toFixed(1)} / ${row.appLoopDelay.max.toFixed(1)} ms`,
        String(row.providerMaps),
        `${row.routed} of ${row.of}`,
        String(row.posts),
        row.loadAverage.toFixed(1),
      ]),
    ),
    ...(batch.skipped ? [`Postgres: skipped. ${batch.skipped}`] : []),
  ];
}

/** BENCH_BATCH_ONLY=1: this row alone, its table and targets printed and written to bench/results.json. */
export async function batchAlone(options: BatchOptions, context: Record<string, unknown>): Promise<void> {
  const { batch, output } = await measureBatch(options);
  const list = batchTargets(batch);
  const targets = table(
    ['target', 'limit', 'measured', ''],
    list.map((target) => [target.name, target.limit, target.measured, verdict(target.pass)]),
  );
  process.stdout.write(`\n${[...renderBatch(batch), '', 'Targets', targets].join('\n')}\n\n`);
  for (const [name, out] of Object.entries(output)) {
    if (out.count === 0) continue;
    process.stdout.write(`${name} process wrote ${out.count} log lines; the first:\n  ${out.lines.join('\n  ')}\n`);
  }
  const elapsedSeconds = performance.now() / 1000;
  const json = { at: new Date().toISOString(), ...context, batch, targets: list, childOutput: output, elapsedSeconds };
  const file = join(REPO_ROOT, 'bench', 'results.json');
  writeFileSync(
    file,
    `${JSON.stringify(json, (_key, value) => (typeof value === 'number' ? round(value) : value), 2)}\n`,
  );
  process.stdout.write(`batch alone took ${elapsedSeconds.toFixed(0)} s; written: ${file}\n`);
}
