// `npm run bench:profile`: where a lone command's CPU goes. For `/voice help` and `/voice agents`, on SQLite and on
// Postgres, a Voice Ops process of its own answers commands one at a time (concurrency 1, as people type them) under
// V8's profiler, and its profile is split into the parts of a command (bench/profile-split.ts). Prints one table of
// milliseconds of CPU per command, part by part; bare Bolt + respond() is profiled the same way, as the floor.
import { createDatabase, postgresBinaries, startPostgres } from '../test/harness/postgres.js';
import type { AppKind, AppReady } from './app-process.js';
import { SIGNING_SECRET } from './constants.js';
import { buildDist, type Child, spawnChild } from './ipc.js';
import { cpuProfile, PARTS, type Part, splitProfile, topFrames } from './profile-split.js';
import { drive, type Session } from './session.js';
import type { StubsReady } from './stubs-process.js';

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 6);
/** The frames that spent the most CPU themselves, printed per run to look inside a part; 0 prints none. */
const TOP = Number(process.env.BENCH_PROFILE_TOP ?? 0);

interface Column {
  name: string;
  commands: number;
  split: Map<Part, number>;
}

async function profiled(
  stubs: Child<StubsReady>,
  kind: AppKind,
  text: string,
  databaseUrl?: string,
): Promise<Omit<Column, 'name'>> {
  const app = await spawnChild<AppReady>('bench/app-process.ts', [kind], {
    env: {
      BENCH_SLACK_API_URL: stubs.ready.slackApiUrl,
      BENCH_SIGNING_SECRET: SIGNING_SECRET,
      BENCH_SANDBOX_URL: stubs.ready.sandboxUrl,
      BENCH_SANDBOX_KEY: stubs.ready.sandboxKey,
      BENCH_LOG_LEVEL: 'warn',
      ...(databaseUrl ? { BENCH_DATABASE_URL: databaseUrl } : {}),
    },
  });
  try {
    const session = { stubs, apps: { [kind]: app } } as unknown as Session;
    // A warm-up first, unprofiled: the profile is of the run alone, its posts to the fake included.
    await drive(session, { kind, app, text, connections: 1, seconds: 1 });
    await app.request({ op: 'profileStart' });
    const run = await drive(session, { kind, app, text, connections: 1, seconds: SECONDS });
    const profile = cpuProfile.parse(await app.request({ op: 'profileStop' }, 60_000));
    for (const { frame, part, ms } of topFrames(profile, TOP)) {
      process.stderr.write(`  ${(ms / run.okTotal).toFixed(4)} ms  ${frame}  [${part}]\n`);
    }
    return { commands: run.okTotal, split: splitProfile(profile) };
  } finally {
    await app.stop();
  }
}

function table(columns: Column[]): string {
  const header = `| part | ${columns.map((column) => column.name).join(' | ')} |`;
  const rule = `|---|${columns.map(() => '---:').join('|')}|`;
  const perCommand = (column: Column, part: Part) => (column.split.get(part) ?? 0) / column.commands;
  const rows = PARTS.map((part) => `| ${part} | ${columns.map((c) => perCommand(c, part).toFixed(3)).join(' | ')} |`);
  const totals = columns.map((c) => PARTS.reduce((sum, part) => sum + perCommand(c, part), 0).toFixed(3));
  return [header, rule, ...rows, `| total | ${totals.join(' | ')} |`].join('\n');
}

async function main(): Promise<void> {
  buildDist();
  const stubs = await spawnChild<StubsReady>('bench/stubs-process.ts', []);
  const postgres = postgresBinaries() === undefined ? undefined : await startPostgres();
  try {
    const columns: Column[] = [];
    const add = async (name: string, kind: AppKind, text: string, databaseUrl?: string) => {
      process.stderr.write(`profiling ${name}…\n`);
      columns.push({ name, ...(await profiled(stubs, kind, text, databaseUrl)) });
    };
    await add('bare Bolt + respond()', 'bare-respond', 'help');
    await add('`/voice help`, SQLite', 'voice', 'help');
    await add('`/voice agents`, SQLite', 'voice', 'agents');
    if (postgres) {
      await add('`/voice help`, Postgres', 'voice', 'help', await createDatabase(postgres.url()));
      await add('`/voice agents`, Postgres', 'voice', 'agents', await createDatabase(postgres.url()));
    }
    process.stdout.write(
      `CPU per command at c=1, ms, by part (${SECONDS} s of commands after a warm-up second: ` +
        `${columns.map((c) => c.commands).join(', ')} commands)\n\n${table(columns)}\n`,
    );
  } finally {
    await stubs.stop();
    await postgres?.remove();
  }
}

await main();
