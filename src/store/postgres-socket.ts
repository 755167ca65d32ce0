// The one place the store reaches past pg's public interface. pg's pipeline mode (a public option) sends a
// transaction's statements without waiting for the answers of those before; but pg writes each statement to its
// socket on its own, a packet each. Corked while a turn of the event loop sends, they leave in one write. pg has no
// public way to cork, so this reads the socket from where pg keeps it (`client.connection.stream`, typed by
// @types/pg but not documented). test/store/postgres-socket.test.ts fails should a pg upgrade move or change it;
// here, a socket not found leaves statements pipelined, only in a write each.
import type pg from 'pg';

/** A socket that holds what is written to it until it is uncorked, then sends it in one write. */
export interface Corkable {
  cork(): void;
  uncork(): void;
}

/** The socket a pooled connection writes its statements to, when pg keeps it where it did when this was written. */
export function socketOf(client: pg.ClientBase): Corkable | undefined {
  const stream = (client as { connection?: { stream?: Partial<Corkable> } }).connection?.stream;
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function' ? (stream as Corkable) : undefined;
}
