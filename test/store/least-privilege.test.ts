// The app needs no more of Postgres than the operator's reference gives its role. Every Postgres test's database and
// role are made by the reference's SQL itself (test/harness/postgres.ts reads it), so the suite runs the app as such
// a role; here that role is shown to be no superuser, to own neither the database nor anything outside its own
// schema, and to be enough for the app's migrations and a change made end to end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATEST_VERSION } from '../../src/store/migrations.js';
import { auditRows, buyThroughApp, voiceNumber } from '../e2e/support.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { TEST_ENGINE } from '../harness/database.js';
import { adminUrlOf, appDatabaseSql, asAdmin } from '../harness/postgres.js';

describe.runIf(TEST_ENGINE === 'postgres')('the role the app runs as on Postgres', () => {
  let t: TestApp;
  let role: string;
  /** Rows a query reads as the admin, in the app's database: what the role itself may not be able to see. */
  let asAdminRead: <T>(text: string, values?: unknown[]) => Promise<T[]>;

  beforeAll(async () => {
    t = await startTestApp();
    if (t.database.target.kind !== 'postgres') throw new Error('a Postgres database');
    const { url } = t.database.target;
    role = decodeURIComponent(new URL(url).username);
    asAdminRead = (text, values) => asAdmin(adminUrlOf(url), async (admin) => (await admin.query(text, values)).rows);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("is made by the reference's SQL: a role and a database, then a schema inside it", () => {
    const sql = appDatabaseSql();
    expect(sql.server.some((statement) => statement.startsWith('CREATE ROLE '))).toBe(true);
    expect(sql.database.some((statement) => statement.startsWith('CREATE SCHEMA '))).toBe(true);
  });

  it('is no superuser, makes no database or role, and neither owns the database nor may create in it', async () => {
    const [attributes] = await asAdminRead<Record<string, unknown>>(
      `SELECT r.rolsuper AS superuser, r.rolcreatedb AS "createsDatabases", r.rolcreaterole AS "createsRoles",
         r.rolreplication AS replication, r.rolbypassrls AS "bypassesRowSecurity",
         pg_get_userbyid(d.datdba) = r.rolname AS "ownsDatabase",
         has_database_privilege(r.oid, d.oid, 'CONNECT') AS connects,
         has_database_privilege(r.oid, d.oid, 'CREATE') AS "createsSchemas",
         has_database_privilege(r.oid, d.oid, 'TEMPORARY') AS "createsTemporaryTables",
         has_schema_privilege(r.oid, 'public', 'CREATE') AS "createsInPublic",
         (SELECT count(*)::int FROM pg_auth_members m WHERE m.member = r.oid) AS "memberOf"
       FROM pg_roles r, pg_database d WHERE r.rolname = $1 AND d.datname = current_database()`,
      [role],
    );
    expect(attributes).toEqual({
      superuser: false,
      createsDatabases: false,
      createsRoles: false,
      replication: false,
      bypassesRowSecurity: false,
      ownsDatabase: false,
      connects: true,
      createsSchemas: false,
      createsTemporaryTables: false,
      createsInPublic: false,
      memberOf: 0,
    });
  });

  it("runs the app's migrations and a change end to end, owning only what is in its own schema", async () => {
    const number = await voiceNumber(t);
    await buyThroughApp(t, OPERATOR, number);
    expect(await auditRows(t)).toContainEqual(
      expect.objectContaining({ action: 'number.buy', target: number, outcome: 'succeeded' }),
    );

    const [schema] = await asAdminRead<{ version: number }>(`SELECT version FROM "${role}".voice_ops_schema`);
    expect(schema?.version).toBe(LATEST_VERSION);
    const sessions = await asAdminRead<{ user: string }>(
      'SELECT DISTINCT usename AS user FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    expect(sessions).toEqual([{ user: role }]);
    // Tables, indexes, sequences and functions alike: every object the role owns is in the schema named after it
    // (a table's overflow table, in pg_toast, goes with the table).
    const owned = await asAdminRead<{ schema: string; objects: number }>(
      `SELECT n.nspname AS schema, count(*)::int AS objects FROM (
         SELECT relnamespace AS namespace FROM pg_class WHERE relowner = $1::regrole
         UNION ALL SELECT pronamespace FROM pg_proc WHERE proowner = $1::regrole
         UNION ALL SELECT typnamespace FROM pg_type WHERE typowner = $1::regrole
       ) o JOIN pg_namespace n ON n.oid = o.namespace WHERE n.nspname <> 'pg_toast' GROUP BY 1`,
      [role],
    );
    expect(owned.map(({ schema }) => schema)).toEqual([role]);
    expect(owned[0]?.objects).toBeGreaterThan(20);
  });
});
