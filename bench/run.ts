// `npm run bench`: Voice Ops against the bare Bolt floor, plus memory, modal, lists at scale, audit and start-up figures,
// and Voice Ops on Postgres beside SQLite.
// Prints the tables and the targets (PASS/MISS) and writes the same figures to bench/results.json. See
// bench/README.md for what is measured how, and the knobs (BENCH_SECONDS, BENCH_CPU_PROF, …).
import { writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDatabase, type PostgresServer, postgresBinaries, startPostgres } from '../test/harness/postgres.js';
import { measureAcks } from './ack.js';
import type { AppKind, AppReady } from './app-process.js';
import type { AuditResult } from './audit.js';
import { batchAlone, measureBatch } from './batch.js';
import { SCALE, SIGNING_SECRET } from './constants.js';
import { measureEngines } from './engines.js';
import { measureFlood } from './flood.js';
import { historyAlone, measureHistory } from './history.js';
import { buildDist, type Child, REPO_ROOT, spawnChild } from './ipc.js';
import { measureLists } from './lists.js';
import { measureMemory } from './memory.js';
import { measureModals } from './modal.js';
import { type Results, render, targets } from './report.js';
import type { Session } from './session.js';
import { measureStartup } from './startup.js';
import { round } from './stats.js';
import type { StubsReady } from './stubs-process.js';
import { measureTakeover } from './takeover.js';

const numberSetting = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0`);
  return value;
};

const settings = {
  seconds: numberSetting('BENCH_SECONDS', 3),
  /** Interleaved repetitions of each closed-loop ack run (every app once, then again), half a run each. */
  repetitions: numberSetting('BENCH_REPETITIONS', 5),
  warmupSeconds: numberSetting('BENCH_WARMUP_SECONDS', 0.75),
  memoryCommands: numberSetting('BENCH_MEMORY_COMMANDS', 20_000),
  memoryWarmupCommands: numberSetting('BENCH_MEMORY_WARMUP', 1_000),
  memoryConnections: 16,
  auditRows: numberSetting('BENCH_AUDIT_ROWS', 1_000_000),
  startupRuns: numberSetting('BENCH_STARTUP_RUNS', 3),
  listSamples: numberSetting('BENCH_LIST_SAMPLES', 100),
  /** Seconds of audit appends, on SQLite and on Postgres alike. */
  auditInsertSeconds: 1.5,
  buys: numberSetting('BENCH_BUYS', 30),
  claims: numberSetting('BENCH_CLAIMS', 50),
  logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
  batchOnly: process.env.BENCH_BATCH_ONLY === '1',
  /** Audit rows the history commands are told from (bench/history.ts). */
  historyRows: numberSetting('BENCH_HISTORY_ROWS', 1_000_000),
  historyOnly: process.env.BENCH_HISTORY_ONLY === '1',
  /** A directory: the Voice Ops process writes a V8 CPU profile there on exit. */
  cpuProfileDir:
    process.env.BENCH_CPU_PROF === '1' ? join(tmpdir(), 'voice-ops-bench-prof') : process.env.BENCH_CPU_PROF,
};

const began = performance.now();
const log = (line: string) => {
  process.stderr.write(`[${((performance.now() - began) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);
};

const machine = {
  nproc: cpus().length,
  cpu: cpus()[0]?.model ?? 'unknown',
  memoryGiB: round(totalmem() / 1024 ** 3, 1),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
};

/**
 * An app under test; Voice Ops reads the stubs' small sandbox unless given another (the listing bench's), and keeps
 * its store in a SQLite file of its own unless given a Postgres database. `loopMonitor: false` leaves out the bench's
 * own loop-delay monitor (see app-process.ts).
 */
async function startApp(
  kind: AppKind,
  stubs: StubsReady,
  {
    sandboxUrl = stubs.sandboxUrl,
    databaseUrl,
    databasePath,
    loopMonitor = true,
  }: { sandboxUrl?: string; databaseUrl?: string; databasePath?: string; loopMonitor?: boolean } = {},
): Promise<Child<AppReady>> {
  const profiling = kind === 'voice' && settings.cpuProfileDir;
  return spawnChild<AppReady>('bench/app-process.ts', [kind], {
    nodeFlags: ['--expose-gc', ...(profiling ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`] : [])],
    env: {
      BENCH_SLACK_API_URL: stubs.slackApiUrl,
      BENCH_SIGNING_SECRET: SIGNING_SECRET,
      BENCH_SANDBOX_URL: sandboxUrl,
      BENCH_SANDBOX_KEY: stubs.sandboxKey,
      BENCH_LOG_LEVEL: settings.logLevel,
      ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}),
      ...(databasePath ? { BENCH_DATABASE_PATH: databasePath } : {}),
      ...(loopMonitor ? {} : { BENCH_LOOP_MONITOR: 'off' }),
    },
  });
}

async function main(): Promise<void> {
  log(`machine: ${machine.nproc} × ${machine.cpu}, node ${machine.node}`);
  buildDist();
  const stubs = await spawnChild<StubsReady>('bench/stubs-process.ts', []);
  const children: Child<unknown>[] = [stubs];
  const batchApp = (sandboxUrl: string, databaseUrl?: string) =>
    startApp('voice', stubs.ready, { sandboxUrl, databaseUrl, loopMonitor: false });
  const batchOptions = { startApp: batchApp, sandboxKey: stubs.ready.sandboxKey, log };
  // One Postgres server for the whole run, as the tests start theirs; removed at the end whatever happens.
  let postgres: PostgresServer | undefined;
  const historyOptions = (server?: PostgresServer) => ({
    rows: settings.historyRows,
    stubs,
    server,
    startApp: (database: { path: string } | { url: string }) =>
      startApp(
        'voice',
        stubs.ready,
        'path' in database ? { databasePath: database.path } : { databaseUrl: database.url },
      ),
    log,
  });
  try {
    if (settings.batchOnly) return await batchAlone(batchOptions, { machine, settings });
    if (settings.historyOnly) {
      if (postgresBinaries() !== undefined) postgres = await startPostgres();
      return await historyAlone(historyOptions(postgres), { machine, settings });
    }
    // First, while this process is fresh: the batch's sandbox and fake Slack run here, on the same two cores.
    const { batch, output: batchOutput } = await measureBatch(batchOptions);

    if (postgresBinaries() !== undefined) postgres = await startPostgres();
    const voice = await startApp('voice', stubs.ready);
    children.push(voice);
    const bare = await startApp('bare', stubs.ready);
    children.push(bare);
    const bareRespond = await startApp('bare-respond', stubs.ready);
    children.push(bareRespond);
    const voicePostgres = postgres
      ? await startApp('voice', stubs.ready, { databaseUrl: await createDatabase(postgres.url()) })
      : undefined;
    if (voicePostgres) children.push(voicePostgres);
    const session: Session = { stubs, apps: { voice, bare, 'bare-respond': bareRespond }, voicePostgres };
    log(
      `apps ready: voice ${voice.ready.url} (startVoiceOps ${voice.ready.startMs.toFixed(0)} ms), bare ${bare.ready.url}` +
        (voicePostgres ? `, voice on Postgres ${voicePostgres.ready.url}` : ', Postgres not installed'),
    );

    // Memory first, on fresh processes, before the latency runs add their own history.
    const memory = [];
    for (const kind of ['voice', 'bare'] as const) {
      log(`memory: ${kind}, ${settings.memoryWarmupCommands} + ${settings.memoryCommands} × /voice help`);
      memory.push(
        await measureMemory(session, kind, {
          commands: settings.memoryCommands,
          warmupCommands: settings.memoryWarmupCommands,
          connections: settings.memoryConnections,
          text: 'help',
        }),
      );
    }

    log(
      `ack latency: closed loops in ${settings.repetitions} interleaved repetitions of ` +
        `${settings.repetitions > 1 ? settings.seconds / 2 : settings.seconds} s, ` +
        `the open loop ${settings.seconds} s, after ${settings.warmupSeconds} s of warm-up`,
    );
    const ack = await measureAcks(session, {
      seconds: settings.seconds,
      warmupSeconds: settings.warmupSeconds,
      repetitions: settings.repetitions,
      log,
    });

    log('acks through a flood of unsigned 3 MB bodies');
    const flood = await measureFlood(session, { seconds: settings.seconds });

    log('views.open timing, provider latency 0 and 2000 ms');
    const modals = await measureModals(session, { gapMs: 150 });

    const output = {
      voice: voice.output(),
      bare: bare.output(),
      bareRespond: bareRespond.output(),
      ...(voicePostgres ? { voicePostgres: voicePostgres.output() } : {}),
    };
    for (const app of [voice, bare, bareRespond, voicePostgres]) await app?.stop();

    log(`lists at ${SCALE.numbers} numbers and ${SCALE.agents} agents, on a Voice Ops process of their own`);
    const listing = await startApp('voice', stubs.ready, { sandboxUrl: stubs.ready.scaleSandboxUrl });
    children.push(listing);
    const lists = await measureLists(stubs, listing, {
      samples: settings.listSamples,
      pagingSeconds: settings.seconds * 2,
      log,
    });
    const listingOutput = listing.output();
    await listing.stop();

    log('start-up times');
    const startup = await measureStartup({
      slackApiUrl: stubs.ready.slackApiUrl,
      sandboxUrl: stubs.ready.sandboxUrl,
      sandboxKey: stubs.ready.sandboxKey,
      appReady: voice.ready,
      runs: settings.startupRuns,
    });

    log(`audit log: inserts, then ${settings.auditRows} rows`);
    const auditChild = await spawnChild<{ result: AuditResult }>(
      'bench/audit-process.ts',
      [String(settings.auditRows), String(settings.auditInsertSeconds), '50'],
      { readyTimeoutMs: 120_000 },
    );
    const audit = auditChild.ready.result;
    await auditChild.stop();

    const history = await measureHistory(historyOptions(postgres));

    const takeover = await measureTakeover({ server: postgres, log });

    // Last: its buys change the stubs' sandbox, which the earlier measures list.
    const { engines, output: enginesOutput } = await measureEngines(session, {
      server: postgres,
      buys: settings.buys,
      claims: settings.claims,
      auditSeconds: settings.auditInsertSeconds,
      startApp: (databaseUrl) => startApp('voice', stubs.ready, { databaseUrl }),
      log,
    });
    if ('skipped' in engines) log(`Postgres beside SQLite: skipped. ${engines.skipped}`);

    const results: Results = { ack, flood, memory, modals, lists, audit, startup, engines, batch, takeover, history };
    const list = targets(results);
    const elapsedSeconds = (performance.now() - began) / 1000;
    process.stdout.write(
      `\n${render(results, list)}\n\nmachine: ${machine.nproc} cores (${machine.cpu}), ${machine.memoryGiB} GiB, ` +
        `node ${machine.node}${'skipped' in engines ? '' : `, ${engines.server}`}; bench took ${elapsedSeconds.toFixed(0)} s\n\n`,
    );
    const childOutput = { ...output, listing: listingOutput, ...batchOutput, ...enginesOutput, stubs: stubs.output() };
    for (const [name, out] of Object.entries(childOutput)) {
      if (out.count === 0) continue;
      process.stdout.write(`${name} process wrote ${out.count} log lines; the first:\n  ${out.lines.join('\n  ')}\n`);
    }
    if (settings.cpuProfileDir)
      process.stdout.write(`CPU profile of the Voice Ops process: ${settings.cpuProfileDir}\n`);

    const json = {
      at: new Date().toISOString(),
      machine,
      settings,
      ...results,
      targets: list,
      childOutput,
      elapsedSeconds,
    };
    const file = join(REPO_ROOT, 'bench', 'results.json');
    writeFileSync(
      file,
      `${JSON.stringify(json, (_key, value) => (typeof value === 'number' ? round(value) : value), 2)}\n`,
    );
    process.stdout.write(`written: ${file}\n`);
  } finally {
    for (const child of children.reverse()) await child.stop();
    await postgres?.remove();
  }
}

await main();
