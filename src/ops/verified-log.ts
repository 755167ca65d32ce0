// What is told from the audit log is read from a verified log: the chain is verified to its end first, and each row
// the answer rests on is checked against its own hash. A broken chain is named, and nothing is told from it.
import { ChainBroken } from '../store/audit-chain.js';
import type { OpsDeps } from './deps.js';
import { type Failure, fail, type Result } from './types.js';

/** Or the failure naming where the chain breaks, whether the verification or `read` found it. */
export async function fromVerifiedLog<T>(deps: OpsDeps, read: (end: number) => Promise<T>): Promise<Result<T>> {
  try {
    const verified = await deps.store.audit.verifyToEnd();
    deps.metrics.auditRowsVerified(verified.rows);
    return { ok: true, ...(await read(verified.end.id)) };
  } catch (error) {
    if (!(error instanceof ChainBroken)) throw error;
    deps.logger.warn({ row: error.id, reason: error.reason }, 'the audit chain is broken: nothing was told from it');
    return brokenChain(error);
  }
}

function brokenChain(broken: ChainBroken): Failure {
  return fail(
    'conflict',
    `The audit log's hash chain breaks at row ${broken.id} (${broken.reason}), so the log no longer shows for ` +
      'certain what happened: nothing was rebuilt from it. Whoever runs Voice Ops can check it with ' +
      'npm run audit -- --verify.',
    { code: 'audit_chain_broken' },
  );
}
