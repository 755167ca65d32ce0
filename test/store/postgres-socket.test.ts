// The one private part of pg the store uses (src/store/postgres-socket.ts): a pooled connection's socket, corked while
// a transaction's statements are sent. Should a pg upgrade move or change it, these fail, rather than every
// transaction quietly costing a socket write per statement.
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres-schema.js';
import { socketOf } from '../../src/store/postgres-socket.js';
import { postgresEngine } from '../../src/store/postgres-sql.js';
import { ENGINES, useTempDatabases } from './helpers.js';

const MOVED = 'pg no longer keeps its socket at client.connection.stream: see src/store/postgres-socket.ts';

describe.runIf(ENGINES.includes('postgres'))("pg's socket, on Postgres", () => {
  const temp = useTempDatabases('postgres');

  /** An engine of one connection, so that every transaction runs on the connection whose socket is watched. */
  async function oneConnection() {
    const target = await temp.target();
    if (target.kind !== 'postgres') throw new Error('a Postgres target was expected');
    const engine = postgresEngine(target.url, { poolSize: 1, statementTimeoutMs: 10_000, onIdleError: () => {} });
    temp.track(engine);
    await engine.connected((client) => migratePostgres(client, engine.label));
    return engine;
  }

  /** Counts the writes that leave the socket (one per `_write`, or per `_writev` of what a cork held). */
  function countWrites(socket: Socket) {
    const counted = { writes: 0 };
    const write = socket._write.bind(socket);
    const writev = socket._writev?.bind(socket);
    socket._write = (...args: Parameters<Socket['_write']>) => {
      counted.writes++;
      write(...args);
    };
    if (writev) {
      socket._writev = (...args: Parameters<NonNullable<Socket['_writev']>>) => {
        counted.writes++;
        writev(...args);
      };
    }
    return counted;
  }

  it('is found where the store corks it, and is the socket the statements go out on', async () => {
    const engine = await oneConnection();
    await engine.connected(async (client) => {
      const socket = socketOf(client);
      expect(socket, MOVED).toBeInstanceOf(Socket);
      const counted = countWrites(socket as Socket);
      await client.query('SELECT 1');
      expect(counted.writes, MOVED).toBeGreaterThan(0);
    });
  });

  it("sends a transaction's statements of one turn in one write: BEGIN, a lock, two writes and a read, then COMMIT", async () => {
    const engine = await oneConnection();
    const counted = await engine.connected(async (client) => {
      const socket = socketOf(client);
      expect(socket, MOVED).toBeInstanceOf(Socket);
      return countWrites(socket as Socket);
    });

    const count = await engine.transaction(async (tx) => {
      await tx.lock('leases');
      await tx.write("INSERT INTO leases (name, holder, expires_at) VALUES ('a', 'r1', 't')");
      await tx.write("INSERT INTO leases (name, holder, expires_at) VALUES ('b', 'r1', 't')");
      return tx.get<{ count: number }>('SELECT count(*) AS count FROM leases');
    });

    expect(count).toEqual({ count: 2 });
    // Uncorked, each of the six statements would be a write of its own.
    expect(counted.writes).toBe(2);
  });
});
