// A real Postgres server for tests: a fresh cluster in a temporary folder, on a free loopback port, removed when it
// stops. initdb and postgres refuse to run as root, so as root they run as the `postgres` user (setpriv execs the
// program itself, so signals reach the server and not a wrapper). Each test's database is made as the operator's
// reference says, by the SQL it gives, with a role of its own that the app runs as.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const DEBIAN_BINARIES = '/usr/lib/postgresql';
/** The server's superuser: the admin who makes each database and its role, and owns the database. */
const ADMIN = 'postgres';

/** The folder of initdb and postgres: Debian's newest installed version. */
export function postgresBinaries(): string | undefined {
  if (!existsSync(DEBIAN_BINARIES)) return undefined;
  const versions = readdirSync(DEBIAN_BINARIES)
    .filter((version) => existsSync(join(DEBIAN_BINARIES, version, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(DEBIAN_BINARIES, versions[0], 'bin');
}

export const POSTGRES_MISSING =
  'Postgres is not installed: the Postgres tests need Debian\'s "postgresql" package (apt-get install postgresql; ' +
  '.ci/run installs it).';

function asPostgresUser(program: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [program, args];
  const { uid, gid } = postgresIds();
  return ['setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', program, ...args]];
}

function postgresIds(): { uid: number; gid: number } {
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres']).toString().trim()));
  return { uid: uid ?? 0, gid: gid ?? 0 };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('No port was given');
  return address.port;
}

export interface PostgresServer {
  readonly port: number;
  /** The URL of `database` on this server (the maintenance database when none is named). */
  url(database?: string): string;
  /** Stops the server as an operator would (fast shutdown), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  remove(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error(POSTGRES_MISSING);
  const folder = mkdtempSync(join(tmpdir(), 'voice-ops-pg-'));
  const data = join(folder, 'data');
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresIds();
    chownSync(folder, uid, gid);
  }
  const [initdb, initArgs] = asPostgresUser(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    ADMIN,
    '-A',
    'trust',
    '--no-sync',
    '--locale=C.UTF-8',
    '-E',
    'UTF8',
  ]);
  execFileSync(initdb, initArgs, { stdio: 'pipe' });
  const port = await freePort();
  const url = (database = 'postgres') => `postgres://${ADMIN}@127.0.0.1:${port}/${database}`;
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const [program, args] = asPostgresUser(join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${folder}`,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=400',
    ]);
    const server = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = server;
    let output = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = once(server, 'exit').then(() => {
      throw new Error(`Postgres stopped while starting:\n${output}`);
    });
    await Promise.race([untilConnectable(url()), exited]);
    exited.catch(() => {});
  };

  const stop = async (): Promise<void> => {
    const server = child;
    child = undefined;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGINT');
    await exited;
  };

  await start();

  return {
    port,
    url,
    stop,
    start,
    async remove() {
      await stop();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function untilConnectable(url: string): Promise<void> {
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The names the operator's reference gives its role and database, which each test's database replaces. */
const DOCUMENTED = { role: /\bvoice_ops_app\b/g, database: /\bvoice_ops\b/g };

/**
 * The statements of the reference's block that makes the app's database and role: those run in the maintenance
 * database, then those after `\connect`, in the new database.
 */
export function appDatabaseSql(): { server: string[]; database: string[] } {
  const reference = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');
  const block = /```sql\n([\s\S]*?)```/.exec(reference)?.[1];
  if (block === undefined) throw new Error('docs/operating.md has no sql block');
  const [server = '', database = ''] = block.split(/^\\connect \S+\n/m);
  const statements = (text: string) =>
    text
      .split(/;\s*$/m)
      .map((statement) => statement.trim())
      .filter(Boolean);
  return { server: statements(server), database: statements(database) };
}

/**
 * A new, empty database on the server whose maintenance database is `adminUrl`, owned by the admin, and a role of
 * its own made by the reference's SQL; the database's URL as that role.
 */
export async function createDatabase(adminUrl: string): Promise<string> {
  const database = `test_${randomBytes(6).toString('hex')}`;
  const role = `${database}_app`;
  const named = (statement: string) => statement.replace(DOCUMENTED.role, role).replace(DOCUMENTED.database, database);
  const sql = appDatabaseSql();
  const inside = new URL(adminUrl);
  inside.pathname = `/${database}`;
  for (const [url, statements] of [
    [adminUrl, sql.server],
    [inside.toString(), sql.database],
  ] as const) {
    await asAdmin(url, async (admin) => {
      for (const statement of statements) await admin.query(named(statement));
    });
  }
  inside.username = role;
  return inside.toString();
}

/** The URL of a test's database as the admin, who owns it: for what only an owner may do (make it read-only). */
export function adminUrlOf(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  url.username = ADMIN;
  return url.toString();
}

/** Drops the databases, closing whatever connections are still open to them, and their roles. */
export async function dropDatabases(adminUrl: string, urls: string[]): Promise<void> {
  if (!urls.length) return;
  await asAdmin(adminUrl, async (admin) => {
    for (const url of urls) {
      const { pathname, username } = new URL(url);
      await admin.query(`DROP DATABASE IF EXISTS ${pathname.slice(1)} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${username}`);
    }
  });
}

/** Runs `work` on a connection of its own to `adminUrl`, closed after it. */
export async function asAdmin<T>(adminUrl: string, work: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}
