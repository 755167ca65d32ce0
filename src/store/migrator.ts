// The one runner of the schema's migrations, on either engine (SQLite answers each of its questions at once, Postgres
// later). The same rules hold on both: the migrations are numbered in order, a database newer than the code is
// refused, each migration runs in a transaction of its own that reads the version again before it applies anything,
// and the version is recorded in that same transaction.

/** A migration of the schema: its version, and whatever the engine applies (SQL, or a function). */
export interface Migration {
  version: number;
  name: string;
}

type Answer<T> = T | Promise<T>;

/** What the runner asks of an engine. Each call answers at once (SQLite) or with a promise (Postgres). */
export interface MigrationTarget<M extends Migration> {
  /** The database as a person would name it, for the messages. */
  readonly label: string;
  /** The version of the engine's first migration: an empty database starts there. */
  readonly first: number;
  /** Held for the whole run, so that processes starting together take turns (Postgres's advisory lock). */
  hold(): Answer<void>;
  release(): Answer<void>;
  /** The version recorded, 0 for a database the app has not touched. */
  version(): Answer<number>;
  /** Begins a migration's transaction, taking the database's write lock before the version is read again. */
  begin(): Answer<void>;
  apply(migration: M): Answer<void>;
  /** Records `version` as the schema's, in the migration's transaction. */
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

/** The version a list of migrations reaches. */
export const latestOf = (migrations: readonly Migration[]): number => migrations.at(-1)?.version ?? 0;

/** Applies the pending migrations, each in its own transaction, and returns the versions it applied. */
export async function runMigrations<M extends Migration>(
  target: MigrationTarget<M>,
  migrations: readonly M[],
): Promise<number[]> {
  if (migrations.some((migration, index) => migration.version !== target.first + index)) {
    const first = target.first;
    throw new Error(`Migrations must be numbered ${first}, ${first + 1}, ${first + 2}… in order`);
  }
  const latest = latestOf(migrations);
  await target.hold();
  try {
    const current = await target.version();
    assertNotNewer(target.label, current, latest);
    const applied: number[] = [];
    for (const migration of migrations.filter((migration) => migration.version > current)) {
      await target.begin();
      let ran = false;
      try {
        // Read again under the write lock: another process may have applied it meanwhile.
        if ((await target.version()) < migration.version) {
          await target.apply(migration);
          await target.record(migration.version);
          ran = true;
        }
        await target.commit();
      } catch (error) {
        await target.rollback();
        throw error;
      }
      if (ran) applied.push(migration.version);
    }
    return applied;
  } finally {
    await target.release();
  }
}
