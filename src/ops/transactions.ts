// The store's transactions as the operations use them: work written all at once or not at all, and never a
// statement sent into a transaction that has already ended.
import type { TransactionOptions } from '../store/sql.js';
import type { OpsDeps } from './deps.js';

/**
 * Runs `work` in one transaction of the store: all of its writes happen, or none. `work` gets the same deps with
 * the store bound to that transaction, so that everything it calls writes there.
 */
export async function atomically<D extends OpsDeps, T>(
  deps: D,
  work: (deps: D) => Promise<T>,
  options?: TransactionOptions,
): Promise<T> {
  const started = performance.now();
  try {
    return await deps.store.transaction((store) => work({ ...deps, store }), options);
  } finally {
    deps.metrics.storeTransaction((performance.now() - started) / 1000);
  }
}

/**
 * Both values once both have ended, or the first one's error (else the second's): unlike Promise.all, never while one
 * still runs, so that nothing sends a statement into a transaction that has already ended.
 */
export async function bothEnded<A, B>(first: Promise<A>, second: Promise<B> | undefined): Promise<[A, B | undefined]> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
  return [a.value, b.value];
}
