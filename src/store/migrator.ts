// The one runner of the schema's steps, on either engine (SQLite answers each of its questions at once, Postgres
// later). The same rules hold on both: the steps are numbered in order, a database newer than the code is refused,
// each step runs in a transaction of its own that reads the version again before it applies anything, and the
// version is recorded in that same transaction.

/** A schema step: its version, and whatever the engine applies (SQL, or a function). */
export interface Step {
  version: number;
  name: string;
}

type Answer<T> = T | Promise<T>;

/** What the runner asks of an engine. Each call answers at once (SQLite) or with a promise (Postgres). */
export interface MigrationTarget<S extends Step> {
  /** The database as a person would name it, for the messages. */
  readonly label: string;
  /** The version of the engine's first step: an empty database starts there. */
  readonly first: number;
  /** Held for the whole run, so that processes starting together take turns (Postgres's advisory lock). */
  hold(): Answer<void>;
  release(): Answer<void>;
  /** The version recorded, 0 for a database the app has not touched. */
  version(): Answer<number>;
  /** Begins a step's transaction, taking the database's write lock before the version is read again. */
  begin(): Answer<void>;
  apply(step: S): Answer<void>;
  /** Records `version` as the schema's, in the step's transaction. */
  record(version: number): Answer<void>;
  commit(): Answer<void>;
  rollback(): Answer<void>;
}

export class SchemaVersionError extends Error {
  override readonly name = 'SchemaVersionError';
}

/** Refuses a database written by newer code: this code would misread it. */
export function assertNotNewer(label: string, version: number, latest: number): void {
  if (version > latest) {
    throw new SchemaVersionError(
      `${label} has schema version ${version}, but this code knows versions up to ${latest}: run a newer voice-ops`,
    );
  }
}

/** The version a list of steps reaches. */
export const latestOf = (steps: readonly Step[]): number => steps.at(-1)?.version ?? 0;

/** Applies the pending steps, each in its own transaction, and returns the versions it applied. */
export async function runMigrations<S extends Step>(
  target: MigrationTarget<S>,
  steps: readonly S[],
): Promise<number[]> {
  if (steps.some((step, index) => step.version !== target.first + index)) {
    const first = target.first;
    throw new Error(`Migrations must be numbered ${first}, ${first + 1}, ${first + 2}… in order`);
  }
  const latest = latestOf(steps);
  await target.hold();
  try {
    const current = await target.version();
    assertNotNewer(target.label, current, latest);
    const applied: number[] = [];
    for (const step of steps.filter((step) => step.version > current)) {
      await target.begin();
      let ran = false;
      try {
        // Read again under the write lock: another process may have applied it meanwhile.
        if ((await target.version()) < step.version) {
          await target.apply(step);
          await target.record(step.version);
          ran = true;
        }
        await target.commit();
      } catch (error) {
        await target.rollback();
        throw error;
      }
      if (ran) applied.push(step.version);
    }
    return applied;
  } finally {
    await target.release();
  }
}
