// The one runner of the schema's steps, on either engine. It is written once, as a generator that asks its engine
// for each thing it needs (`yield* ask(…)`): SQLite answers at once, so its migrations run synchronously, as a
// connection is opened; Postgres answers later, so its driver awaits each answer. Either way the same rules hold: the
// steps are numbered in order, a database newer than the code is refused, each step runs in a transaction of its own
// that reads the version again before it applies anything, and the version is recorded in that same transaction.

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

type Run = Generator<unknown, number[], unknown>;

/** Hands `answer` to the driver and takes back what it settles to. */
function* ask<T>(answer: Answer<T>): Generator<unknown, T, unknown> {
  return (yield answer) as T;
}

/** The run itself: applies the pending steps, each in its own transaction, and returns the versions it applied. */
function* run<S extends Step>(target: MigrationTarget<S>, steps: readonly S[]): Run {
  if (steps.some((step, index) => step.version !== target.first + index)) {
    const first = target.first;
    throw new Error(`Migrations must be numbered ${first}, ${first + 1}, ${first + 2}… in order`);
  }
  const latest = latestOf(steps);
  yield* ask(target.hold());
  try {
    const current = yield* ask(target.version());
    assertNotNewer(target.label, current, latest);
    const applied: number[] = [];
    for (const step of steps.filter((step) => step.version > current)) {
      yield* ask(target.begin());
      let ran = false;
      try {
        // Read again under the write lock: another process may have applied it meanwhile.
        if ((yield* ask(target.version())) < step.version) {
          yield* ask(target.apply(step));
          yield* ask(target.record(step.version));
          ran = true;
        }
        yield* ask(target.commit());
      } catch (error) {
        yield* ask(target.rollback());
        throw error;
      }
      if (ran) applied.push(step.version);
    }
    return applied;
  } finally {
    yield* ask(target.release());
  }
}

/** Runs the steps on an engine that answers at once (SQLite), before returning. */
export function migrateNow<S extends Step>(target: MigrationTarget<S>, steps: readonly S[]): number[] {
  const running = run(target, steps);
  let next = running.next();
  while (!next.done) {
    if (next.value instanceof Promise) {
      const refused = new Error(`${target.label}: a step answered with a promise where an answer was needed at once`);
      next = running.throw(refused);
    } else {
      next = running.next(next.value);
    }
  }
  return next.value;
}

/** Runs the steps on an engine that answers with promises (Postgres), awaiting each answer. */
export async function migrateLater<S extends Step>(target: MigrationTarget<S>, steps: readonly S[]): Promise<number[]> {
  const running = run(target, steps);
  let next = running.next();
  while (!next.done) {
    let answer: { value: unknown } | { error: unknown };
    try {
      answer = { value: await next.value };
    } catch (error) {
      answer = { error };
    }
    next = 'error' in answer ? running.throw(answer.error) : running.next(answer.value);
  }
  return next.value;
}
