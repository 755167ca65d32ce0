// Any error a database gave, on either engine, as what it says of the database (busy, full, not writable,
// unreachable, failing), so that whoever asked can be told the truth in words: see slack/database-faults.ts.
import { sqliteFault } from './db.js';
import { postgresFault } from './postgres-sql.js';
import type { DatabaseFault } from './sql.js';

export type { DatabaseFault } from './sql.js';

/** What went wrong with the database, or undefined for an error that is not a database's. */
export function databaseFault(error: unknown): DatabaseFault | undefined {
  return sqliteFault(error) ?? postgresFault(error);
}
