// What Start over clears and what it refuses to: only the databases the playground itself created, only inside its
// data folder, only when no other process uses them, and never a Postgres database (shared by every replica). It
// removes the sandbox's database and starts the app's afresh, keeping its audit log (append-only, as everywhere) with
// a row saying who reset the playground. A refusal changes nothing, restarts nothing, and says why.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { OPERATOR } from '../../src/playground/people.js';
import { madeByPlayground, startOverPlan } from '../../src/playground/start-over.js';
import { verifyChain } from '../../src/store/audit-chain.js';
import { openDatabase } from '../../src/store/db.js';
import { openEngine } from '../../src/store/open-store.js';
import { startTestPlayground, type TestPlayground } from './support.js';

const started: TestPlayground[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const playground of started.splice(0).reverse()) await playground.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function playground(env: Record<string, string> = {}): Promise<TestPlayground> {
  const t = await startTestPlayground(env);
  started.push(t);
  return t;
}

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'voice-ops-start-over-'));
  dirs.push(dir);
  return dir;
}

/** What the page hears before Start over is confirmed. */
async function whatItDoes(t: TestPlayground): Promise<{ ok: boolean; says: string[] }> {
  const answer = await request(`${t.url}api/start-over`);
  return (await answer.body.json()) as { ok: boolean; says: string[] };
}

/** Start over confirmed on the page. */
async function startOver(t: TestPlayground): Promise<{ ok: boolean; reason?: string }> {
  const origin = t.url.replace(/\/$/, '');
  const answer = await request(`${t.url}api/start-over`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ user: OPERATOR.id }),
  });
  return (await answer.body.json()) as { ok: boolean; reason?: string };
}

/** Runs `work` on its own connection to the SQLite file, beside the app's. */
function withFile<T>(path: string, work: (db: Sqlite.Database) => T): T {
  const db = new Sqlite(path, { fileMustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const SQLITE_COMPANIONS = ['', '-wal', '-shm', '-journal'];

describe('what Start over removes', () => {
  it('on Postgres, nothing: it says the database is shared by every replica and its audit log is append-only', () => {
    const plan = startOverPlan(
      parseConfig({ DATABASE_URL: 'postgres://voiceops@127.0.0.1:5432/voiceops', DATABASE_PATH: '/srv/play/x.db' }),
    );
    expect(plan.ok).toBe(false);
    expect(plan).not.toHaveProperty('files');
    const says = plan.says.join(' ');
    expect(says).toContain('shared with every other replica');
    expect(says).toContain('append-only');
    expect(says).toContain('/srv/play/sandbox.db is shared with them too');
    expect(says).toContain('a new, empty database');
    expect(says).toContain('Nothing is removed or restarted.');
  });

  it('the app’s and the sandbox’s databases not there yet, only inside the playground’s data folder', () => {
    const plan = startOverPlan(parseConfig({ DATABASE_PATH: '/srv/play/voice-ops.db' }), 0);
    expect(plan).toMatchObject({
      ok: true,
      databases: ['/srv/play/voice-ops.db', '/srv/play/sandbox.db'],
      files: SQLITE_COMPANIONS.map((suffix) => `/srv/play/sandbox.db${suffix}`),
      afresh: '/srv/play/voice-ops.db',
    });
    const elsewhere = startOverPlan(
      parseConfig({ DATABASE_PATH: '/srv/play/voice-ops.db', SANDBOX_DATABASE_PATH: '/srv/sandbox.db' }),
      0,
    );
    expect(elsewhere).toMatchObject({ ok: false, reason: expect.stringContaining('/srv/sandbox.db') });
  });

  it('the databases a fresh playground created and marked: the sandbox’s removed, the app’s records cleared, its audit log kept', async () => {
    const t = await playground();
    const { databasePath } = t.config;
    const sandboxPath = join(t.config.databasePath, '..', 'sandbox.db');
    const notes = join(databasePath, '..', 'notes.txt');
    await writeFile(notes, 'not the playground’s');
    expect(madeByPlayground(databasePath)).toBe(true);
    expect(madeByPlayground(sandboxPath)).toBe(true);

    const plan = await whatItDoes(t);
    expect(plan.ok).toBe(true);
    expect(plan.says[0]).toContain(`removes the sandbox’s database, ${sandboxPath}`);
    expect(plan.says[0]).toContain(`clears the app’s records of them in ${databasePath}`);
    expect(plan.says[1]).toContain('The audit log stays, append-only as everywhere, and records that the playground');
    expect(plan.says[1]).toContain('Everything else stays');

    const before = t.playground.app;
    withFile(sandboxPath, (db) => db.exec('CREATE TABLE left_over (x)'));
    withFile(databasePath, (db) =>
      db
        .prepare('INSERT INTO routes (phone_number, agent_id, updated_at, updated_by) VALUES (?, ?, ?, ?)')
        .run('+4930123456', 'agt_1', new Date().toISOString(), OPERATOR.id),
    );
    const auditRows = () =>
      withFile(databasePath, (db) =>
        db
          .prepare<[], { action: string; actor_id: string }>('SELECT action, actor_id FROM audit_events ORDER BY id')
          .all(),
      );
    const kept = auditRows();
    expect(kept.length).toBeGreaterThan(0);

    expect(await startOver(t)).toEqual({ ok: true });
    expect(t.playground.app).not.toBe(before);
    expect(
      withFile(sandboxPath, (db) => db.prepare("SELECT name FROM sqlite_master WHERE name = 'left_over'").all()),
    ).toEqual([]);
    expect(withFile(databasePath, (db) => db.prepare('SELECT * FROM routes').all())).toEqual([]);
    // Every row of the log before it, then one saying who reset the playground; the chain still verifies.
    const after = auditRows();
    expect(after.slice(0, kept.length)).toEqual(kept);
    expect(after.slice(kept.length)).toEqual([{ action: 'playground.reset', actor_id: OPERATOR.id }]);
    const engine = await openEngine({ kind: 'sqlite', path: databasePath });
    try {
      expect(await verifyChain(engine)).toMatchObject({ ok: true, rows: after.length });
    } finally {
      await engine.close();
    }
    expect(existsSync(notes)).toBe(true);
    // The sandbox's made afresh and marked again, the app's still marked: the next Start over runs too.
    expect(madeByPlayground(databasePath)).toBe(true);
    expect(madeByPlayground(sandboxPath)).toBe(true);
    expect((await whatItDoes(t)).ok).toBe(true);
  });

  it('nothing when the app’s database was there before the playground: it names the file and keeps it', async () => {
    const databasePath = join(await folder(), 'voice-ops.db');
    (await openDatabase(databasePath)).close(); // the app's own database, as `npm start` with Slack credentials leaves it
    const t = await playground({ DATABASE_PATH: databasePath });
    const sandboxPath = join(databasePath, '..', 'sandbox.db');
    expect(madeByPlayground(databasePath)).toBe(false);
    expect(madeByPlayground(sandboxPath)).toBe(true);

    const plan = await whatItDoes(t);
    expect(plan.ok).toBe(false);
    expect(plan.says.join(' ')).toContain(`${databasePath} was not created by the playground`);
    const before = t.playground.app;
    const answer = await startOver(t);
    expect(answer).toEqual({ ok: false, reason: expect.stringContaining(databasePath) });
    // Neither file goes, not even the sandbox's, which alone would leave the app's records on numbers it forgot.
    expect(t.playground.app).toBe(before);
    expect(existsSync(databasePath)).toBe(true);
    expect(existsSync(sandboxPath)).toBe(true);
  });

  it('nothing while another process uses the same database file, and what it made once that process stops', async () => {
    const first = await playground();
    const second = await startTestPlayground({ DATABASE_PATH: first.config.databasePath });
    try {
      const plan = await whatItDoes(first);
      expect(plan.ok).toBe(false);
      expect(plan.says.join(' ')).toContain(`another process uses ${first.config.databasePath}`);
      const before = first.playground.app;
      expect((await startOver(first)).ok).toBe(false);
      expect(first.playground.app).toBe(before);
      expect(existsSync(first.config.databasePath)).toBe(true);
    } finally {
      await second.close();
    }
    expect(await startOver(first)).toEqual({ ok: true });
  });
});
