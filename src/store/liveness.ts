// Whether a replica's process still runs: held, not timed. Each holds a lock the OS or the server lets go of when it
// dies, so that a dead replica's work is taken over at once; lease expiry stays as the last resort.
import { randomUUID } from 'node:crypto';

export interface Liveness {
  /** This process, as leases, intents and the other replicas name it. */
  readonly replica: string;
  /** Whether this process holds its liveness now; while it does not, it starts no change at the provider. */
  readonly held: boolean;
  /** Bumped on each retake after a loss: work begun under an earlier epoch must not reach the provider. */
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
