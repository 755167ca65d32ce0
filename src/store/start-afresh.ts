// Starting a SQLite database afresh while keeping its history: every record of numbers, agents, routes, requests and
// deliveries goes, while the audit log (append-only, as everywhere) and the settings stay, and one more audit row
// says that it was done, in the same transaction. For the playground's Start over, with the app stopped.
import { type AuditEntry, AuditLog } from './audit.js';
import { APP_TABLES } from './db.js';
import { openEngine } from './open-store.js';

/** Kept: the audit log and its checkpoints, the settings and their version. */
const KEPT = new Set(['audit_events', 'audit_checkpoints', 'settings', 'settings_version']);

/** Clears every table of the file's schema but those kept, and appends `done` to its audit log. */
export async function startAfresh(path: string, done: AuditEntry): Promise<void> {
  const engine = await openEngine({ kind: 'sqlite', path });
  try {
    await engine.transaction(async (tx) => {
      const tables = await tx.all<{ name: string }>(APP_TABLES);
      for (const { name } of tables) {
        if (!KEPT.has(name)) await tx.write(`DELETE FROM "${name.replaceAll('"', '""')}"`);
      }
      await new AuditLog(tx, { inTransaction: true }).append(done);
    });
  } finally {
    await engine.close();
  }
}
