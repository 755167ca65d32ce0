// The schema's steps, on both engines: a released step is frozen text (its hash is kept here, so that an edit, or a
// step built from a list the code widens later, fails this file); one runner applies them, and a database of any
// older version reaches the schema a new one has; the batch tables refuse what the other tables refuse.
import { createHash } from 'node:crypto';
import Sqlite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AUDIT_OUTCOMES, AUDIT_SOURCES } from '../../src/store/audit.js';
import { Batches } from '../../src/store/batches.js';
import { LATEST_VERSION, MIGRATIONS, migrate, SQLITE_HISTORY_VERSION } from '../../src/store/migrations.js';
import { migratePostgres, POSTGRES_BASELINE, POSTGRES_MIGRATIONS } from '../../src/store/postgres-schema.js';
import { postgresEngine } from '../../src/store/postgres-sql.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { sqliteEngine } from '../../src/store/sqlite-sql.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// Each step's text as released. A new step adds its line; a line never changes. Step 2 is a function (it hashes the
// rows older than the chain): its SQL is tested by the upgrade of a version 1 database (audit-chain.test.ts).
const RELEASED: Record<'sqlite' | 'postgres', Record<number, string>> = {
  sqlite: {
    1: '7347edce3e9972ea5b153a355cf22cfac74e3295d5e3050ecbfcd77327f173f8',
    3: '238489b50158d878737d34f072e8a3a89f6a93d18f7bcf1e9b3b112b254fc9da',
    4: 'b98b6923f6923f983695b3b593e7f48c9bb2767db493c0b5efa17b42a3516921',
    5: 'f701b7fdbff9c9176937eed789f7a9f58d93c125720ed65a602c05b6342c814f',
    6: '7b5d816ee0c3a0f46148f746a4461e601d3a3d1b0eeabcf6afa5ebf9bea811b2',
    7: '10243e75050a24886d2e24b4d47c3bdfa88204da7abae0c91c1bac569ccd4210',
    8: '620e4051d04c62aa7e82a60c65985723dd0e77300dd32029aba5aa67e90f3e00',
    9: '790611c425308ad69aeb52a936678c4dd2b21167dcaa059c39c4374185eef78d',
    10: '92e7ace7c6a2ee7e043d6af992df423f5ea300351bf7b849419109204c165cfb',
    11: '04ae74ca0197e0d0f723b4ab14d99c12ed5154a3d7b555c83b965b010102fda7',
    12: '700a511e450eab3140db8442e06f4e5c9c2fbc3864ed3b3327a224fd44ebf86d',
    13: 'a183bef4a426f60cfa6c14ff2607eb09921e061d52a9a9b60d17272eb003fa1a',
    14: 'e5f4ad43a8981c384c0ebcb9162cb40d2e9542931c2df37ed6328c5b22e4be2d',
    15: '9f968faeb51f95d3f3c1ac71c204902bc5f1dcceff676ead94a3b950bd1e14a6',
    16: '2cab05b28b436eeaa6ad8ec942177ef45f814e0159dc80559427ae490f5599f6',
    17: 'e7c5b10cd84ba376f236b6e7890bc0c52e28ff4768afa49bb62e5109a8baa149',
    18: '51d7a23b97116e1e37e39acca881de034af0c61d545dc194311246c408facb06',
    19: 'dd9b1942e5227512f25e2ae3c15efffa2e8ad5bfe45e016a70aed75a7a6b81e6',
    20: 'e123c06177148d6309ff8b524a9e0fce5d3f060523819229d4e18d2d7009ad34',
    21: '2cf3a03dfd2449d1af05c415216394647b1a611dbce874c7269871f705a97799',
  },
  postgres: {
    8: '50dc5b8071084be1e1c948797fe29b3692f63d6cc31b362b9456745a889aca20',
    9: '790611c425308ad69aeb52a936678c4dd2b21167dcaa059c39c4374185eef78d',
    10: '92e7ace7c6a2ee7e043d6af992df423f5ea300351bf7b849419109204c165cfb',
    11: '04ae74ca0197e0d0f723b4ab14d99c12ed5154a3d7b555c83b965b010102fda7',
    12: 'c5c941815a626d9c5a48c57ccb2603a368bd86b803e950c423fa5ba0ad9a377e',
    13: '9539fb33527c4e6c2aa195f3c9cd93fde6fcbf695dfee38ec3ee47e79ff6f3ed',
    14: 'b16c823ef11bafba6a4f0fa9d8c7a557d4df7379f4a40ce13c8d79952d93b55e',
    15: 'be0bfa489481f7fd198524890cd3aa6ad43ec08eaae55f1e7eb923db24bf05fd',
    16: 'a4930b344da8e808bbae953922043df88bb4bca181ea92c877c5a18a5e58a152',
    17: '7b7f8608dbebed7bf3e6de980acc6b5b13a983cca9c6f287b1971bc25016e236',
    18: '21ecca0647808f2cdd165e0798d22858b4198c660a922ac8494f188d9df5b6f4',
    19: 'e4a07a73cb48786ccb9cd106c3b8005ec27f3f0035883a7b7ac7be38fd6d0b02',
    20: 'e2b35213e6479f742e626c02af0e425fdf3659bfd36033d67b9bf51b62807b99',
    21: '11fc45aa2c1ff713188aad84773c9ebae0f1b412b62cd656d09a90b6d83259d1',
  },
};

describe('the released steps', () => {
  it('are frozen text: each hashes, on each engine, to what it did when it was released', () => {
    const hashes = (steps: readonly { version: number }[]) =>
      Object.fromEntries(steps.flatMap((step) => ('sql' in step ? [[step.version, sha256(String(step.sql))]] : [])));
    expect(hashes(MIGRATIONS)).toEqual(RELEASED.sqlite);
    expect(hashes(POSTGRES_MIGRATIONS)).toEqual(RELEASED.postgres);
    expect(MIGRATIONS.map((step) => step.version)).toEqual(Array.from({ length: LATEST_VERSION }, (_, i) => i + 1));
    expect(POSTGRES_MIGRATIONS.map((step) => step.version)).toEqual(
      Array.from({ length: LATEST_VERSION - SQLITE_HISTORY_VERSION + 1 }, (_, i) => SQLITE_HISTORY_VERSION + i),
    );
  });

  it("have the Postgres baseline name its release's audit sources and outcomes, written out rather than read from the code", () => {
    expect(POSTGRES_BASELINE).toContain(
      "CHECK (source IN ('command', 'button', 'modal', 'home', 'system', 'provider'))",
    );
    expect(POSTGRES_BASELINE).toContain(
      "CHECK (outcome IN ('requested', 'confirmed', 'succeeded', 'failed', 'denied', 'cancelled', 'expired', " +
        "'rejected', 'awaiting_approval', 'approved'))",
    );
  });
});

/** A database left at `version` by the code of that version, on an engine that does not migrate it further. */
async function atVersion(temp: ReturnType<typeof useTempDatabases>, name: string, version: number) {
  if (temp.engine === 'sqlite') {
    const db = new Sqlite(temp.path(name));
    await migrate(db, MIGRATIONS.slice(0, version));
    return temp.track(sqliteEngine(db));
  }
  const target = await temp.target(name);
  if (target.kind !== 'postgres') throw new Error('a Postgres target was expected');
  const engine = postgresEngine(target.url, { poolSize: 2, statementTimeoutMs: 10_000, onIdleError: () => {} });
  temp.track(engine);
  await engine.connected((client) =>
    migratePostgres(
      client,
      engine.label,
      POSTGRES_MIGRATIONS.filter((step) => step.version <= version),
    ),
  );
  return engine;
}

/** The schema as the database describes it: tables, columns, checks, collations and indexes, without any rows. */
async function schemaOf(sql: SqlEngine): Promise<unknown> {
  if (sql.dialect.name === 'sqlite') {
    return sql.all("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name");
  }
  return {
    columns: await sql.all(
      `SELECT table_name, column_name, data_type, collation_name, is_nullable, column_default
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, column_name`,
    ),
    constraints: await sql.all(
      `SELECT conrelid::regclass::text AS table_name, contype, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE connamespace = current_schema()::regnamespace ORDER BY 1, 2, 3`,
    ),
    // Each test database's schema is named after its own role, which an index's definition names: left out here.
    indexes: await sql.all(
      `SELECT indexname, replace(indexdef, current_schema() || '.', '') AS indexdef
       FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1`,
    ),
    triggers: await sql.all(
      `SELECT event_object_table, trigger_name, event_manipulation, action_timing, action_statement
       FROM information_schema.triggers WHERE trigger_schema = current_schema() ORDER BY 1, 2, 3`,
    ),
  };
}

const REFUSED = /CHECK constraint failed|violates check constraint|invalid input syntax for type json/;

describe.each(ENGINES)('the schema on %s', (engine) => {
  const temp = useTempDatabases(engine);
  const firstVersion = engine === 'sqlite' ? 1 : SQLITE_HISTORY_VERSION;

  it('is the same for a database of any older version, once migrated, as for a new one', async () => {
    const fresh = await schemaOf(await temp.open('fresh'));
    for (let version = firstVersion; version < LATEST_VERSION; version++) {
      const old = await atVersion(temp, `v${version}`, version);
      await old.close();
      expect(await schemaOf(await temp.open(`v${version}`)), `from version ${version}`).toEqual(fresh);
    }
  });

  it('keeps the batches and items written before their checks, ids, states and JSON as they were', async () => {
    const old = await atVersion(temp, 'before', LATEST_VERSION - 1);
    const clock = manualClock();
    const batches = (sql: SqlEngine) => new Batches(sql, { now: clock.now, ttlMs: 600_000 });
    const map = { kind: 'routing.map' as const, agentId: 'agt_1', agentName: 'Desk' };
    for (const id of ['b-2', 'b-1']) {
      await batches(old).create({
        id,
        kind: id === 'b-1' ? 'routing.map' : 'number.release',
        plan: {
          request: { kind: 'routing.map', agentId: 'agt_1', filter: { region: 'US' } },
          totals: { change: 2, taken: 0, unchanged: 1 },
        },
        requestedBy: 'U1',
        actor: { userId: 'U1', source: 'command' },
        items: [
          { change: { ...map, phoneNumber: '+15550100001' }, state: 'unchanged' },
          { change: { ...map, phoneNumber: '+15550100002' }, state: 'pending' },
          { change: { ...map, phoneNumber: '+15550100003', agentName: 'é "quoted"' }, state: 'pending' },
        ],
      });
    }
    await batches(old).start('b-1', 'U1');
    await batches(old).startItem('b-1', 2);
    await batches(old).finishItem('b-1', 2, 'failed', 'provider said no');
    const read = async (sql: SqlEngine) => ({
      batches: await Promise.all(['b-1', 'b-2'].map((id) => batches(sql).get(id))),
      items: await Promise.all(['b-1', 'b-2'].map((id) => batches(sql).items(id, { offset: 0, limit: 10 }))),
      underWay: await batches(sql).underWay(),
    });
    const before = await read(old);
    expect(before.batches.map((batch) => batch?.state)).toEqual(['running', 'planned']);
    await old.close();

    const migrated = await temp.open('before');
    expect(await read(migrated)).toEqual(before);
    expect(await batches(migrated).startItem('b-1', 3)).toBe(true);
  });

  it('refuses a batch or an item whose state is not one of its list, or whose JSON is not an object', async () => {
    const sql = await temp.open();
    const batch = {
      id: 'b1',
      kind: 'routing.map',
      plan: '{"agent":"agt_1"}',
      actor: '{"userId":"U1"}',
      state: 'planned',
      total: 1,
    };
    const insertBatch = (row: typeof batch) =>
      sql.run(
        `INSERT INTO batches (id, kind, plan, requested_by, actor, state, total, created_at, expires_at, updated_at)
         VALUES (@id, @kind, @plan, 'U1', @actor, @state, @total, 't', 't', 't')`,
        row,
      );
    for (const bad of [
      { state: 'paused' },
      { plan: 'not json' },
      { plan: '["agt_1"]' },
      { actor: '"U1"' },
      { total: -1 },
    ]) {
      await expect(insertBatch({ ...batch, id: 'bad', ...bad }), JSON.stringify(bad)).rejects.toThrow(REFUSED);
    }
    expect(await insertBatch(batch)).toBe(1);

    const item = { seq: 1, change: '{"phoneNumber":"+15550100001"}', state: 'pending' };
    const insertItem = (row: typeof item) =>
      sql.run("INSERT INTO batch_items (batch_id, seq, change, state) VALUES ('b1', @seq, @change, @state)", row);
    for (const bad of [{ state: 'done' }, { change: '{nope' }, { change: '[1]' }, { seq: 0 }]) {
      await expect(insertItem({ ...item, seq: 2, ...bad }), JSON.stringify(bad)).rejects.toThrow(REFUSED);
    }
    expect(await insertItem(item)).toBe(1);
    expect(await sql.all('SELECT batch_id, seq FROM batch_items')).toEqual([{ batch_id: 'b1', seq: 1 }]);
  });

  it('accepts exactly the audit sources and outcomes the code knows', async () => {
    const sql = await temp.open();
    // At the next id and with a well-formed hash, as the append-only trigger asks, so that only a CHECK can refuse.
    const insert = (source: string, outcome: string) =>
      sql.run(
        `INSERT INTO audit_events (id, at, actor_id, source, action, outcome, correlation_id, hash)
         VALUES ((SELECT coalesce(max(id), 0) + 1 FROM audit_events), 't', 'U1', ?, 'agent.list', ?, 'c',
           '${'0'.repeat(64)}')`,
        [source, outcome],
      );
    for (const source of AUDIT_SOURCES) expect(await insert(source, 'succeeded')).toBe(1);
    for (const outcome of AUDIT_OUTCOMES) expect(await insert('command', outcome)).toBe(1);
    await expect(insert('email', 'succeeded')).rejects.toThrow(REFUSED);
    await expect(insert('command', 'maybe')).rejects.toThrow(REFUSED);
  });
});

describe.runIf(ENGINES.includes('postgres'))('the migrations on Postgres', () => {
  const temp = useTempDatabases('postgres');
  const steps = [
    { version: 8, name: 'one', sql: 'CREATE TABLE one (x INTEGER)' },
    { version: 9, name: 'two', sql: 'CREATE TABLE two (x INTEGER)' },
  ];

  async function connected() {
    const target = await temp.target();
    if (target.kind !== 'postgres') throw new Error('a Postgres target was expected');
    const engine = postgresEngine(target.url, { poolSize: 1, statementTimeoutMs: 10_000, onIdleError: () => {} });
    temp.track(engine);
    return engine;
  }

  const tables = (sql: SqlEngine) =>
    sql.all<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1',
    );

  it('apply pending steps in order, once, recording each version, with the runner SQLite uses', async () => {
    const sql = await connected();
    const run = (list: typeof steps) => sql.connected((client) => migratePostgres(client, sql.label, list));
    expect(await run(steps.slice(0, 1))).toEqual([8]);
    expect(await run(steps)).toEqual([9]);
    expect(await run(steps)).toEqual([]);
    expect(await sql.all('SELECT version FROM voice_ops_schema')).toEqual([{ version: 9 }]);
    expect((await tables(sql)).map((table) => table.name)).toEqual(['one', 'two', 'voice_ops_schema']);
  });

  it('roll a failing step back entirely, keep the steps before it, and give the lock back', async () => {
    const sql = await connected();
    const broken = [...steps, { version: 10, name: 'broken', sql: 'CREATE TABLE three (x INTEGER); NOT SQL' }];
    await expect(sql.connected((client) => migratePostgres(client, sql.label, broken))).rejects.toThrow(/syntax error/);
    expect(await sql.all('SELECT version FROM voice_ops_schema')).toEqual([{ version: 9 }]);
    expect((await tables(sql)).map((table) => table.name)).toEqual(['one', 'two', 'voice_ops_schema']);
    // One connection in the pool: the one that ran the migrations, which must hold no advisory lock now.
    expect(
      await sql.get(`SELECT count(*) AS held FROM pg_locks
         WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`),
    ).toEqual({ held: 0 });
  });

  it('refuse a list that is not numbered from the baseline on, in order', async () => {
    const sql = await connected();
    const run = (list: typeof steps) => sql.connected((client) => migratePostgres(client, sql.label, list));
    await expect(run([...steps].reverse())).rejects.toThrow(/numbered 8, 9, 10… in order/);
    await expect(run([{ version: 1, name: 'one', sql: 'SELECT 1' }])).rejects.toThrow(/numbered/);
    expect(await tables(sql)).toEqual([]);
  });

  it('leave every text column comparing byte by byte, as SQLite does', async () => {
    const sql = await temp.open();
    expect(
      await sql.all(
        `SELECT table_name, column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND data_type = 'text' AND collation_name IS DISTINCT FROM 'C'`,
      ),
    ).toEqual([]);
  });
});
