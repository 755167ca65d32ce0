// Whether a replica's process still runs: held, not timed. Each process holds something that the operating system or
// the database server lets go of the moment the process dies (a session's advisory lock on Postgres, a file lock
// beside the SQLite file), and the others test it. A dead replica's leases and changes are then taken over at once,
// instead of when its leases expire; the expiry stays as the last resort (a replica cut off by the network whose
// session the server has not yet ended).
import { randomUUID } from 'node:crypto';

export interface Liveness {
  /** This process, as leases, intents and the other replicas name it. */
  readonly replica: string;
  /** Whether this process holds its liveness now; while it does not, it starts no change at the provider. */
  readonly held: boolean;
  /**
   * Counts the times liveness was taken again after a loss. The other replicas may have taken over whatever this one
   * began under an earlier count, so that work must not reach the provider any more.
   */
  readonly epoch: number;
  /** Whether `replica` (another process, or this one) still runs. */
  isAlive(replica: string): Promise<boolean>;
  close(): Promise<void>;
}

export const newReplicaId = (): string => randomUUID();

/** A database no other process can open (SQLite in memory): this process is the only replica there is. */
export function soleLiveness(): Liveness {
  const replica = newReplicaId();
  return {
    replica,
    held: true,
    epoch: 0,
    isAlive: (other) => Promise.resolve(other === replica),
    close: () => Promise.resolve(),
  };
}
