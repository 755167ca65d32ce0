// The app's process says on its start-up log which store it opened: the SQLite file, or the Postgres server's host and
// port, the database and the user, and never the password its DATABASE_URL carries (one the test server accepts, as
// it asks for none).
import { expect, it } from 'vitest';
import { startReplicas, useProcessBed } from './process-support.js';

const PASSWORD = 'store-password-never-logged';
const bed = useProcessBed('voice-ops-store-named-', [PASSWORD]);

it('names the store it opened on its start-up log, never with a password', async () => {
  const { target } = bed.database;
  const url = target.kind === 'postgres' ? new URL(target.url) : undefined;
  if (url) url.password = PASSWORD;
  const [app] = await startReplicas(bed, 1, url ? { DATABASE_URL: url.toString() } : {});
  const opened = app?.entries().find((entry) => String(entry.msg).startsWith('opened the store'));

  if (target.kind === 'sqlite') {
    expect(opened).toMatchObject({
      msg: `opened the store: the SQLite file ${target.path}`,
      store: { engine: 'sqlite', file: target.path },
    });
  } else {
    const [host, port, database, user] = [url?.hostname, Number(url?.port), url?.pathname.slice(1), url?.username];
    expect(opened).toMatchObject({
      msg: `opened the store: the Postgres database "${database}" on ${host}:${port} as ${user}`,
      store: { engine: 'postgres', host, port, database, user },
    });
  }
  expect(app?.output()).not.toContain(PASSWORD);
});
