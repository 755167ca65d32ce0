// From SIGKILL to the requester told: two replicas of the app (`node dist/main.js`) on one database, at the default
// lease (30 s) and provider timeout (10 s). A buy is confirmed on the first, held at the provider until the replica is
// killed, then let through, as a provider finishes what it was sent; the time runs from the kill until the second
// replica's answer ("Bought …, checked with the provider") reaches the buy's response_url. Five kills per engine, on a
// SQLite file, then on a Postgres database (skipped when Postgres is not installed); the target judges the medians.
// The sandbox and the fake Slack run in this process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Sandbox, startSandbox } from '../src/sandbox/server.js';
import { ACTION } from '../src/slack/ids.js';
import { OPERATOR, SIGNING_SECRET } from '../test/harness/app.js';
import { type AppProcess, appEnvironment, spawnApp } from '../test/harness/app-process.js';
import { type FakeSlack, RESPONSE_URL, startFakeSlack } from '../test/harness/fake-slack.js';
import { blockAction, OPS_CHANNEL, slashCommand } from '../test/harness/payloads.js';
import { createDatabase, type PostgresServer } from '../test/harness/postgres.js';
import { postToSlackApp } from '../test/harness/signing.js';
import { buttonValue } from './blocks.js';
import { type Distribution, distribution, until } from './stats.js';
import type { Target } from './table.js';

export const TAKEOVER = { kills: 5, limitMs: 5_000 };

export type TakeoverResult = Partial<Record<'sqlite' | 'postgres', Distribution>> & { skipped?: string };

type Replica = AppProcess & { eventsUrl: string };

/** The defaults an operator runs with, not the tests' short leases. */
const DEFAULTS = { LEASE_TTL_S: '30', VOICE_API_TIMEOUT_MS: '10000' };

let replies = 0;
async function post(slack: FakeSlack, app: Replica, body: (responseUrl: string) => string): Promise<string> {
  const id = `takeover-${++replies}`;
  const answer = await postToSlackApp(app.eventsUrl, SIGNING_SECRET, body(slack.respondUrl(id)));
  if (answer.status !== 200) throw new Error(`the app answered ${answer.status}`);
  return id;
}

/** One kill: a buy held at the provider on `first`, which is killed; resolves with the time until `told`. */
async function oneKill(slack: FakeSlack, sandbox: Sandbox, first: Replica, number: string): Promise<number> {
  const asked = await post(slack, first, (responseUrl) =>
    slashCommand({ text: `numbers buy ${number}`, userId: OPERATOR, responseUrl }),
  );
  const prompt = await slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === asked);
  sandbox.faults.inject('buyNumber', { type: 'hold' }, { times: 1 });
  const buys = sandbox.requestCount('buyNumber');
  const answers = await post(slack, first, (responseUrl) =>
    blockAction({
      userId: OPERATOR,
      actionId: ACTION.confirmChange,
      value: buttonValue(prompt.body, ACTION.confirmChange) ?? '',
      container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
      responseUrl,
    }),
  );
  if (!(await until(async () => sandbox.requestCount('buyNumber') > buys, 60_000, 5))) {
    throw new Error('the buy never reached the provider');
  }
  const killed = performance.now();
  first.child.kill('SIGKILL');
  sandbox.faults.clear();
  await slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === answers && JSON.stringify(call.body).includes('checked with the provider'),
    { timeoutMs: 120_000 },
  );
  const told = performance.now() - killed;
  await first.exited;
  return told;
}

async function onEngine(database: Record<string, string>, log: (line: string) => void): Promise<Distribution> {
  const slack = await startFakeSlack();
  const sandbox = await startSandbox({ port: 0 });
  const started: AppProcess[] = [];
  const replica = async (): Promise<Replica> => {
    const app = spawnApp({ via: 'node', env: { ...appEnvironment(slack, sandbox, database), ...DEFAULTS } });
    started.push(app);
    return { ...app, eventsUrl: (await app.ready).eventsUrl };
  };
  try {
    await replica(); // the survivor of every kill
    const { data } = (await (
      await fetch(`${sandbox.url}/list-available-numbers?region=US&limit=${TAKEOVER.kills}`, {
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      })
    ).json()) as { data: { number: string }[] };
    const times: number[] = [];
    for (const { number } of data.slice(0, TAKEOVER.kills)) {
      times.push(await oneKill(slack, sandbox, await replica(), number));
      log(`  killed mid-buy: told after ${times.at(-1)?.toFixed(0)} ms`);
    }
    return distribution(times);
  } finally {
    for (const app of started) app.child.kill('SIGKILL');
    await Promise.all(started.map((app) => app.exited));
    await sandbox.close();
    await slack.close();
  }
}

export async function measureTakeover(options: {
  server?: PostgresServer;
  log: (line: string) => void;
}): Promise<TakeoverResult> {
  const dir = mkdtempSync(join(tmpdir(), 'voice-ops-bench-takeover-'));
  try {
    options.log('SIGKILL to the requester told: SQLite');
    const sqlite = await onEngine({ DATABASE_PATH: join(dir, 'voice-ops.db') }, options.log);
    if (!options.server) return { sqlite, skipped: 'Postgres is not installed' };
    options.log('SIGKILL to the requester told: Postgres');
    const postgres = await onEngine({ DATABASE_URL: await createDatabase(options.server.url()) }, options.log);
    return { sqlite, postgres };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median time from SIGKILL to the requester told, per engine measured. */
export function takeoverTargets(result: TakeoverResult): Target[] {
  return (['sqlite', 'postgres'] as const).flatMap((engine) => {
    const times = result[engine];
    if (!times) return [];
    return [
      {
        name: `SIGKILL mid-buy to the requester told, ${engine === 'sqlite' ? 'SQLite' : 'Postgres'} (${TAKEOVER.kills} kills)`,
        limit: `≤ ${TAKEOVER.limitMs} ms (median)`,
        measured: `${times.p50.toFixed(0)} ms (median), ${times.max.toFixed(0)} ms (max)`,
        pass: times.p50 <= TAKEOVER.limitMs,
      },
    ];
  });
}
