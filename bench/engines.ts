// Voice Ops on Postgres beside Voice Ops on SQLite, in the same run, on the same machine and the same stubs (the
// commands' acknowledgements on each engine are rows of the ack table, bench/ack.ts):
// - A buy, one after another: the command and its prompt, then Confirm and its answer, on each engine.
// - Confirm pressed on two replicas of one Postgres database at once, for every one of a batch of confirmations:
//   the time to the last answer, and whether each confirmation bought its number exactly once.
// - AuditLog.append on Postgres, as bench/audit.ts measures it on SQLite.
// The bench's one Postgres server (test/harness/postgres.ts: a fresh cluster on loopback, run as the tests run it)
// serves it all.
import { parseDatabaseTarget } from '../src/config.js';
import { AuditLog } from '../src/store/audit.js';
import { openEngine } from '../src/store/open-store.js';
import { createDatabase, POSTGRES_MISSING, type PostgresServer } from '../test/harness/postgres.js';
import type { Engine } from './ack.js';
import type { AppReady } from './app-process.js';
import { type AppendRate, appendRate } from './audit.js';
import type { BuyTiming, ClaimsResult } from './buys.js';
import type { Child, ChildOutput } from './ipc.js';
import type { Session } from './session.js';
import { type Distribution, distribution } from './stats.js';

const ENGINES = ['sqlite', 'postgres'] as const satisfies Engine[];

export interface EngineBuys {
  engine: Engine;
  ask: Distribution;
  confirm: Distribution;
  /** ask + confirm of each buy: the app's part of a buy, without the person's pause between the two. */
  buy: Distribution;
}

export interface EnginesResult {
  /** The Postgres server's version. */
  server: string;
  buys: EngineBuys[];
  claims: ClaimsResult & { replicas: number };
  auditAppends: AppendRate;
}

export type EnginesOutcome = EnginesResult | { skipped: string };

export interface EnginesOptions {
  /** The bench's Postgres server; undefined when Postgres is not installed (the section is skipped). */
  server: PostgresServer | undefined;
  /** Buys on each engine, one after another. */
  buys: number;
  /** Confirmations pressed on both replicas at once. */
  claims: number;
  auditSeconds: number;
  /** A new Voice Ops process: on a SQLite file of its own, or on the Postgres database at `databaseUrl`. */
  startApp(databaseUrl?: string): Promise<Child<AppReady>>;
  log(line: string): void;
}

/** The measures, and what each app process wrote (for the parent to show beside the others'). */
export async function measureEngines(
  session: Session,
  options: EnginesOptions,
): Promise<{ engines: EnginesOutcome; output: Record<string, ChildOutput> }> {
  const { log, server } = options;
  if (!server) return { engines: { skipped: POSTGRES_MISSING }, output: {} };
  const apps: Record<string, Child<AppReady>> = {};
  const start = async (name: string, databaseUrl?: string) => {
    const app = await options.startApp(databaseUrl);
    apps[name] = app;
    return app;
  };
  try {
    const databaseUrl = await createDatabase(server.url());
    const on: Record<Engine, Child<AppReady>> = {
      sqlite: await start('sqlite'),
      postgres: await start('postgres', databaseUrl),
    };

    log(`engines: ${options.buys} buys on each`);
    const buys: EngineBuys[] = [];
    for (const engine of ENGINES) {
      const eventsUrl = `${on[engine].ready.url}/slack/events`;
      const timings = await session.stubs.request<BuyTiming[]>(
        { op: 'buys', askUrl: eventsUrl, confirmUrl: eventsUrl, count: options.buys },
        options.buys * 10_000,
      );
      buys.push({
        engine,
        ask: distribution(timings.map((timing) => timing.askMs)),
        confirm: distribution(timings.map((timing) => timing.confirmMs)),
        buy: distribution(timings.map((timing) => timing.askMs + timing.confirmMs)),
      });
    }

    log(`engines: ${options.claims} confirmations pressed on two replicas at once`);
    const replicas = [on.postgres, await start('postgres replica', databaseUrl)];
    const claims = await session.stubs.request<ClaimsResult>(
      {
        op: 'claims',
        askUrl: `${on.postgres.ready.url}/slack/events`,
        confirmUrls: replicas.map((replica) => `${replica.ready.url}/slack/events`),
        count: options.claims,
      },
      120_000 + options.claims * 2_000,
    );
    const output = await stopAll(apps);

    // With the apps stopped, so that the server serves the appends alone, as SQLite's file does in bench/audit.ts;
    // on a database of its own, whose audit table starts empty as SQLite's does there.
    log(`engines: audit appends on Postgres for ${options.auditSeconds} s`);
    const engine = await openEngine(parseDatabaseTarget({ DATABASE_URL: await createDatabase(server.url()) }));
    try {
      const version = await engine.get<{ server_version: string }>('SHOW server_version');
      const auditAppends = await appendRate(new AuditLog(engine), options.auditSeconds);
      return {
        engines: {
          server: `PostgreSQL ${version?.server_version ?? '?'}`,
          buys,
          claims: { ...claims, replicas: replicas.length },
          auditAppends,
        },
        output,
      };
    } finally {
      await engine.close();
    }
  } finally {
    await stopAll(apps);
  }
}

/** Stops the apps (again: a stopped one returns at once); what each wrote, by name. */
async function stopAll(apps: Record<string, Child<AppReady>>): Promise<Record<string, ChildOutput>> {
  for (const app of Object.values(apps)) await app.stop();
  return Object.fromEntries(Object.entries(apps).map(([name, app]) => [`${name} (engines)`, app.output()]));
}
