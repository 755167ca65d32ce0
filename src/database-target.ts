// Where the store lives, as configuration says it: a Postgres server (by URL) or a SQLite file (by path). Beneath
// both config.ts, which reads it from the environment, and the store, which opens it.
export type DatabaseTarget =
  | { kind: 'postgres'; url: string; poolSize: number; statementTimeoutMs: number }
  | { kind: 'sqlite'; path: string };
