// Start over on a playground whose app keeps its records in Postgres, in Chromium: two playground processes (`node
// dist/main.js` with no Slack credentials, as `npm start` runs it) on one Postgres database are two replicas of one
// app, and their embedded sandboxes share one file (sandbox.db beside DATABASE_PATH). A number bought in one shows
// in the other; Start over pressed in one says why it does not run there and removes and restarts nothing, so that
// both still show the same account, and the SQLite file the team copied to Postgres (DATABASE_PATH) is still there.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, launchChromium } from '../../src/playground/browser.js';
import { OPERATOR } from '../../src/playground/people.js';
import { madeByPlayground } from '../../src/playground/start-over.js';
import { openDatabase } from '../../src/store/db.js';
import { type AppProcess, killLeftovers, spawnApp } from '../harness/app-process.js';
import {
  createDatabase,
  POSTGRES_MISSING,
  type PostgresServer,
  postgresBinaries,
  startPostgres,
} from '../harness/postgres.js';
import { eventually, noBrowser, person, requireChromium } from './in-chromium.js';

/** Skipped without Postgres, except in CI, where starting the server then fails saying so. */
const noPostgres = postgresBinaries() === undefined && !process.env.CI;
if (noPostgres) console.warn(`${POSTGRES_MISSING} The Postgres playground's Start over test is skipped.`);

interface Replica {
  process: AppProcess;
  url: string;
  page: Page;
}

const bed = {} as { server: PostgresServer; dir: string; copied: string; browser: Browser; replicas: Replica[] };

/** A playground process on the database at `databaseUrl`, its page's address once it says it. */
async function playgroundProcess(env: Record<string, string>): Promise<{ process: AppProcess; url: string }> {
  const app = spawnApp({ via: 'node', env: { HOME: process.env.HOME ?? '', LOG_LEVEL: 'debug', ...env } });
  const deadline = Date.now() + 45_000;
  for (;;) {
    const line = app.entries().find((entry) => String(entry.msg).startsWith('Playground: open'));
    if (line) return { process: app, url: String(line.url) };
    if (app.child.exitCode !== null) throw new Error(`the playground exited:\n${app.output()}`);
    if (Date.now() > deadline) throw new Error(`the playground did not start:\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(noBrowser || noPostgres)('Start over on a Postgres playground of two processes, in Chromium', () => {
  beforeAll(async () => {
    const chromiumPath = requireChromium();
    bed.replicas = [];
    bed.server = await startPostgres();
    const databaseUrl = await createDatabase(bed.server.url());
    bed.dir = await mkdtemp(join(tmpdir(), 'voice-ops-start-over-pg-'));
    // The SQLite file a team copied to Postgres (npm run db:copy) and left where DATABASE_PATH names it.
    bed.copied = join(bed.dir, 'voice-ops.db');
    (await openDatabase(bed.copied)).close();
    const env = { DATABASE_URL: databaseUrl, DATABASE_PATH: bed.copied };
    // One after the other, as replicas are usually started; the second finds the schema the first made.
    const started = [await playgroundProcess(env), await playgroundProcess(env)];
    bed.browser = await launchChromium(chromiumPath);
    for (const { process, url } of started) {
      const page = await bed.browser.context.newPage();
      page.setDefaultTimeout(30_000);
      bed.replicas.push({ process, url, page });
    }
  }, 120_000);

  afterAll(async () => {
    await bed.browser?.close();
    for (const { process } of bed.replicas ?? []) {
      process.child.kill('SIGTERM');
      await process.exited;
    }
    killLeftovers();
    await bed.server?.remove();
    if (bed.dir) await rm(bed.dir, { recursive: true, force: true });
  }, 60_000);

  it('says why it does not run, removes and restarts nothing, and both replicas still show the same account', async () => {
    const [one, other] = bed.replicas as [Replica, Replica];
    const you = person(one.page, one.url);
    const them = person(other.page, other.url);
    await you.openAs(OPERATOR.id);
    await them.openAs(OPERATOR.id);

    // A number bought through one replica's page shows in the other's.
    await you.type('/voice numbers search US');
    await you.message('Available numbers').getByRole('button', { name: 'Buy', exact: true }).first().click();
    const prompt = you.message('This spends money on the provider account.');
    const number = /Buy (\+\d+)\./.exec(await prompt.innerText())?.[1] ?? '';
    expect(number).toMatch(/^\+1\d{10}$/);
    await prompt.getByRole('button', { name: 'Buy', exact: true }).click();
    await you.message(`Bought ${number}`).waitFor();
    await them.type('/voice numbers');
    await eventually(() => them.message('Numbers').innerText()).toContain(number);

    // Start over says why it does not run, and offers nothing to press but OK.
    const copiedBefore = readFileSync(bed.copied);
    await one.page.getByRole('button', { name: 'Start over' }).click();
    const told = one.page.getByRole('alertdialog', { name: 'Start over does not run here' });
    await told.waitFor();
    const says = await told.innerText();
    expect(says).toContain('shared with every other replica');
    expect(says).toContain('append-only');
    expect(says).toContain(`${join(bed.dir, 'sandbox.db')} is shared with them too`);
    expect(says).toContain('Nothing is removed or restarted.');
    expect(await told.getByRole('button').allInnerTexts()).toEqual(['OK']);
    await told.getByRole('button', { name: 'OK' }).click();
    await eventually(() => told.isVisible()).toBe(false);
    // Asked of the page's server directly, as a page of an older version would: it refuses too.
    const answer = await one.page.evaluate(async (user) => {
      const response = await fetch('/api/start-over', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user }),
      });
      return (await response.json()) as { ok: boolean; reason?: string };
    }, OPERATOR.id);
    expect(answer).toEqual({ ok: false, reason: expect.stringContaining('append-only') });

    // Nothing was removed or restarted: the copied file and the shared sandbox file are there as they were, the
    // page keeps its messages, and both replicas show the same account, the number in it.
    expect(readFileSync(bed.copied).equals(copiedBefore)).toBe(true);
    expect(madeByPlayground(bed.copied)).toBe(false);
    expect(existsSync(join(bed.dir, 'sandbox.db'))).toBe(true);
    expect(await you.message(`Bought ${number}`).count()).toBe(1);
    expect(one.process.entries().some((entry) => String(entry.msg).startsWith('Playground: started over'))).toBe(false);
    for (const replica of [you, them]) {
      await replica.type('/voice numbers');
      await eventually(() => replica.message('Numbers').innerText()).toContain(number);
    }
    await one.page.getByRole('tab', { name: 'Home' }).click();
    await other.page.getByRole('tab', { name: 'Home' }).click();
    for (const { page } of [one, other])
      await eventually(() => page.getByRole('tabpanel').innerText()).toContain(number);
  });
});
