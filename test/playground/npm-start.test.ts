// `npm start` as its own process, the compiled app as the README runs it: with no Slack credentials it serves the
// playground (its page copied into dist/ by the build) and logs where; with them, none of the playground runs and its
// routes do not exist.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeSlack } from '../../src/playground/fake-slack.js';
import { type AppProcess, killLeftovers, spawnApp } from '../harness/app-process.js';

const running: AppProcess[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const app of running.splice(0)) {
    if (app.child.exitCode === null && app.child.signalCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
  }
  killLeftovers();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** `npm start` with only these variables (and what npm needs to run): no Slack credential unless given. */
function npmStart(env: Record<string, string>): AppProcess {
  const app = spawnApp({ via: 'npm start', env: { HOME: process.env.HOME ?? '', ...env } });
  running.push(app);
  return app;
}

async function databaseIn(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-ops-start-'));
  dirs.push(dir);
  return join(dir, 'voice-ops.db');
}

async function until<T>(read: () => T | undefined, what: string): Promise<T> {
  // Generous: npm and a build when dist/ is stale come first, which a machine busy with other work can make slow.
  const deadline = Date.now() + 45_000;
  for (;;) {
    const found = read();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm start', () => {
  it('with no Slack credentials, serves the playground and logs its address and that nothing real is bought', async () => {
    const app = npmStart({ DATABASE_PATH: await databaseIn() });
    const line = await until(
      () => app.entries().find((entry) => String(entry.msg).startsWith('Playground:')),
      'the playground line',
    );
    expect(String(line.msg)).toContain('nothing real is bought');
    // Not a TTY: JSON lines, the address in an info line, and no other address said to be ready.
    expect(line.level).toBe(30);
    expect(app.entries().some((entry) => entry.msg === 'Voice Ops is ready')).toBe(false);
    const url = String(line.url);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(String(line.msg)).toContain(url);
    const page = await request(url);
    expect(page.statusCode).toBe(200);
    expect(await page.body.text()).toContain('<title>Voice Ops playground</title>');
    for (const file of ['page/app.js', 'page/blocks.js', 'page/style.css']) {
      const served = await request(new URL(file, url));
      expect(served.statusCode, file).toBe(200);
      await served.body.dump();
    }
    // The probes and /metrics are on PORT too, where the line says they are.
    for (const probe of ['healthz', 'readyz', 'metrics']) {
      expect(String(line.msg)).toContain(`${url}${probe}`);
      const answer = await request(new URL(probe, url));
      expect(answer.statusCode, probe).toBe(200);
      expect(await answer.body.text()).toMatch(probe === 'metrics' ? /voice_ops_commands_total/ : /"ok":true/);
    }

    app.child.kill('SIGTERM');
    expect(await app.exited).toEqual({ code: 0, signal: null });
  });

  it('with Slack credentials, runs no playground: its page and routes do not exist', async () => {
    const slack = await startFakeSlack();
    try {
      const app = npmStart({
        SLACK_BOT_TOKEN: 'xoxb-start-test',
        SLACK_SIGNING_SECRET: 'start-test-secret',
        SLACK_API_URL: slack.apiUrl,
        DATABASE_PATH: await databaseIn(),
      });
      const { eventsUrl } = await app.ready;
      const base = eventsUrl.replace(/\/slack\/events$/, '');
      for (const path of ['/', '/page/app.js', '/api/state', '/api/events']) {
        const response = await request(`${base}${path}`);
        expect(response.statusCode, path).toBe(404);
        await response.body.dump();
      }
      expect(app.output()).not.toContain('Playground');
    } finally {
      await slack.close();
    }
  });
});
