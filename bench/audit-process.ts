// Runs the audit-log measurement in a process of its own (a small heap, nothing else on its event loop) and
// hands the result to the parent as its `ready` message. Arguments: rows, insert seconds, query runs.
import { measureAudit } from './audit.js';
import { serveParent } from './ipc.js';

const [rows = '1000000', insertSeconds = '2', queryRuns = '50'] = process.argv.slice(2);
const result = await measureAudit({
  rows: Number(rows),
  insertSeconds: Number(insertSeconds),
  queryRuns: Number(queryRuns),
});
serveParent({ result }, (request) => {
  if (request.op === 'stop') return null;
  throw new Error(`unknown request ${request.op}`);
});
