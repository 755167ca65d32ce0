// What is told from a long audit log: `/voice export as of`, `/voice changes since` and `/voice history` at
// BENCH_HISTORY_ROWS audit rows (1,000,000), on SQLite and on Postgres, each on a Voice Ops process of its own, while
// another person sends `/voice help` at a steady pace. The rows are written before the app starts, in bulk, chained as
// the app chains them (test/store/audit-support.ts's fill): a tenth of them maps of 1,000 numbers to 50 agents, a
// tenth their requests, the rest reads. The first command finds no checkpoint and verifies the whole chain; the
// others go on from the checkpoint it wrote. Each row: its acknowledgement, its answer at the fake Slack, and the
// acknowledgements of the `/voice help`s sent while it ran.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DatabaseTarget } from '../src/database-target.js';
import '../src/ops/kinds/index.js';
import { openEngine } from '../src/store/open-store.js';
import { createDatabase, type PostgresServer } from '../test/harness/postgres.js';
import { type FilledRow, fill } from '../test/store/audit-support.js';
import type { AppReady } from './app-process.js';
import { ADMIN, OPERATOR, SIGNING_SECRET } from './constants.js';
import { type Child, REPO_ROOT } from './ipc.js';
import { runPaced } from './paced.js';
import { type Distribution, round } from './stats.js';
import type { ListTiming, StubsReady } from './stubs-process.js';
import { type Target, table, verdict } from './table.js';

export type HistoryEngine = 'sqlite' | 'postgres';

export interface HistoryRow {
  engine: HistoryEngine;
  command: string;
  ackMs: number;
  answerMs: number;
  /** `/voice help` sent by another person while the command ran. */
  help: Distribution;
}

export interface HistoryResult {
  rows: number;
  /** Seconds to write the rows in bulk, hashes included, per engine. */
  fillSeconds: Partial<Record<HistoryEngine, number>>;
  commands: HistoryRow[];
}

const FROM = new Date('2020-01-01T00:00:00Z');
const NUMBERS = 1000;
const AGENTS = 50;
/** Another person's pace: a p99 of a few hundred samples over a long command. */
const HELP_RATE = 20;
const ANSWER_TIMEOUT_MS = 600_000;

const benchNumber = (index: number) => `+1555010${String(index % NUMBERS).padStart(4, '0')}`;

/** A tenth of the rows maps, a tenth their requests, the rest reads. */
function rowOf(n: number): FilledRow {
  const number = benchNumber(Math.floor(n / 10));
  const agentId = `agt_bench_${Math.floor(n / 10) % AGENTS}`;
  const params = JSON.stringify({ agentId });
  if (n % 10 === 8) return { action: 'routing.map', target: number, params, outcome: 'requested' };
  if (n % 10 === 9) return { action: 'routing.map', target: number, params, outcome: 'succeeded' };
  return {};
}

/** Writes `rows` chained rows into the database at `target`, its triggers off on Postgres (one check a row). */
async function filled(target: DatabaseTarget, rows: number): Promise<number> {
  const sql = await openEngine(target);
  const started = performance.now();
  try {
    const postgres = target.kind === 'postgres';
    if (postgres) await sql.run('ALTER TABLE audit_events DISABLE TRIGGER USER');
    await fill(sql, rows, FROM, rowOf);
    if (postgres) await sql.run('ALTER TABLE audit_events ENABLE TRIGGER USER');
  } finally {
    await sql.close();
  }
  return (performance.now() - started) / 1000;
}

export interface HistoryOptions {
  rows: number;
  stubs: Child<StubsReady>;
  /** Postgres for its rows, when installed. */
  server?: PostgresServer;
  startApp: (database: { path: string } | { url: string }) => Promise<Child<AppReady>>;
  log: (line: string) => void;
}

export async function measureHistory(options: HistoryOptions): Promise<HistoryResult> {
  const result: HistoryResult = { rows: options.rows, fillSeconds: {}, commands: [] };
  const dir = mkdtempSync(join(tmpdir(), 'voice-ops-bench-history-'));
  try {
    const engines: [HistoryEngine, DatabaseTarget][] = [
      ['sqlite', { kind: 'sqlite', path: join(dir, 'voice-ops.db') }],
    ];
    if (options.server) {
      const url = await createDatabase(options.server.url());
      engines.push(['postgres', { kind: 'postgres', url, poolSize: 10, statementTimeoutMs: 30_000 }]);
    }
    for (const [engine, target] of engines) {
      options.log(`history: ${options.rows} audit rows on ${engine}, written in bulk`);
      result.fillSeconds[engine] = await filled(target, options.rows);
      const app = await options.startApp(target.kind === 'sqlite' ? { path: target.path } : { url: target.url });
      try {
        result.commands.push(...(await commandsOn(engine, options.stubs, app, options.log)));
      } finally {
        await app.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}

/** The three commands in turn, the first finding no checkpoint, each with `/voice help` paced beside it. */
async function commandsOn(
  engine: HistoryEngine,
  stubs: Child<StubsReady>,
  app: Child<AppReady>,
  log: (line: string) => void,
): Promise<HistoryRow[]> {
  const eventsUrl = `${app.ready.url}/slack/events`;
  const send = (text: string, userId: string) =>
    stubs.request<ListTiming>(
      {
        op: 'list',
        kind: 'command',
        text,
        eventsUrl,
        signingSecret: SIGNING_SECRET,
        timeoutMs: ANSWER_TIMEOUT_MS,
        userId,
      },
      ANSWER_TIMEOUT_MS + 5000,
    );
  // The new process's first command times its compiler and first reads: not one of the rows.
  await send('agents', ADMIN);
  const commands = [
    'export as of 2020-01-10 12:00 (no checkpoint yet)',
    'changes since 2020-01-11',
    `history ${benchNumber(1)}`,
    'export as of 2020-01-10 12:00',
  ];
  const rows: HistoryRow[] = [];
  for (const command of commands) {
    const text = command.replace(' (no checkpoint yet)', '');
    log(`history: /voice ${text} on ${engine}`);
    const timing = send(text, OPERATOR);
    const help = await runPaced({
      url: app.ready.url,
      connections: 4,
      seconds: ANSWER_TIMEOUT_MS / 1000,
      until: timing,
      text: 'help',
      userId: ADMIN,
      responseUrl: stubs.ready.responseUrl,
      signingSecret: SIGNING_SECRET,
      rate: HELP_RATE,
    });
    const { ackMs, answerMs } = await timing;
    rows.push({ engine, command, ackMs, answerMs, help: help.latency });
  }
  return rows;
}

/** Slack's three seconds for a command's acknowledgement; another person's ack, as through a flood of bodies. */
export const HISTORY_LIMITS = { ackMs: 3000, helpAckP99Ms: 100 } as const;

const ENGINE_NAMES: Record<HistoryEngine, string> = { sqlite: 'SQLite', postgres: 'Postgres' };
const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

export function historyTargets(history: HistoryResult): Target[] {
  const rows = `${history.rows.toLocaleString('en-US')} audit rows`;
  return (['sqlite', 'postgres'] as const).flatMap((engine) => {
    const of = history.commands.filter((row) => row.engine === engine);
    if (of.length === 0) return [];
    const slowestAck = Math.max(...of.map((row) => row.ackMs));
    const helpP99 = Math.max(...of.map((row) => row.help.p99));
    const slowestAnswer = Math.max(...of.map((row) => row.answerMs));
    return [
      {
        name: `export as of, changes since, history acknowledged at ${rows}, ${ENGINE_NAMES[engine]}`,
        limit: `≤ ${HISTORY_LIMITS.ackMs} ms`,
        measured: `${fixed(slowestAck)} ms`,
        pass: slowestAck <= HISTORY_LIMITS.ackMs,
      },
      {
        name: `another person's /voice help ack p99 meanwhile, ${ENGINE_NAMES[engine]}`,
        limit: `≤ ${HISTORY_LIMITS.helpAckP99Ms} ms`,
        measured: `${fixed(helpP99, 1)} ms`,
        pass: helpP99 <= HISTORY_LIMITS.helpAckP99Ms,
      },
      {
        name: `the slowest of their answers, ${ENGINE_NAMES[engine]}`,
        limit: '',
        measured: `${fixed(slowestAnswer / 1000, 1)} s`,
        pass: undefined,
      },
    ];
  });
}

export function renderHistory(history: HistoryResult): string[] {
  const filled = Object.entries(history.fillSeconds)
    .map(([engine, seconds]) => `${ENGINE_NAMES[engine as HistoryEngine]} ${fixed(seconds)} s`)
    .join(', ');
  return [
    `Told from the audit log at ${history.rows.toLocaleString('en-US')} rows (written in bulk: ${filled}); ` +
      `/voice help at ${HELP_RATE}/s by another person meanwhile (ms)`,
    table(
      ['engine', 'command', 'ack', 'answer', 'help ack p50', 'p99', 'max', 'helps'],
      history.commands.map((row) => [
        ENGINE_NAMES[row.engine],
        `/voice ${row.command}`,
        fixed(row.ackMs, 1),
        fixed(row.answerMs),
        fixed(row.help.p50, 1),
        fixed(row.help.p99, 1),
        fixed(row.help.max, 1),
        String(row.help.count),
      ]),
    ),
  ];
}

/** `BENCH_HISTORY_ONLY=1`: this measurement alone, its table and targets, written alone to bench/results.json. */
export async function historyAlone(options: HistoryOptions, context: Record<string, unknown>): Promise<void> {
  const history = await measureHistory(options);
  const list = historyTargets(history);
  const targets = table(
    ['target', 'limit', 'measured', ''],
    list.map((target) => [target.name, target.limit, target.measured, verdict(target.pass)]),
  );
  process.stdout.write(`\n${[...renderHistory(history), '', 'Targets', targets].join('\n')}\n\n`);
  const file = join(REPO_ROOT, 'bench', 'results.json');
  const json = { at: new Date().toISOString(), ...context, history, targets: list };
  writeFileSync(
    file,
    `${JSON.stringify(json, (_key, value) => (typeof value === 'number' ? round(value) : value), 2)}\n`,
  );
  process.stdout.write(`written: ${file}\n`);
}
