// Releasing a number: it cannot be undone, so it is confirmed first (typed, where the policy says); its routing
// record goes with it, and a lost answer is settled against the purchased list.
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import type { PendingChange } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import { unexpectedStatus } from '../failures.js';
import type { ProviderReads } from '../provider-reads.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';

type Release = Extract<PendingChange, { kind: 'number.release' }>;

function releaseWork(deps: OpsDeps, change: Release): Work {
  return {
    action: 'number.release',
    target: change.number,
    params: { numberId: change.numberId },
    intent: change,
    lockKeys: [`number:${change.number}`],
    run: async () => {
      const released = await deps.provider.releaseNumber(change.numberId);
      if (released.status !== EXPECTED_STATUS.numberReleased) {
        return unexpectedStatus('the release', EXPECTED_STATUS.numberReleased, released.status);
      }
      return {
        ok: true,
        keep: async (deps) => {
          await deps.store.routes.removeNumber(change.number);
          await deps.store.facts.forgetNumber(change.number);
        },
        change: {
          action: 'number.release',
          number: { id: change.numberId, number: change.number },
          unroutedAgent: change.routedAgent,
        },
      };
    },
  };
}

async function verifyRelease(deps: OpsDeps, change: Release, reads: ProviderReads): Promise<Verified> {
  if ((await reads.numbers()).has(change.number)) {
    return fail('provider', `${change.number} was not released: it is still one of your numbers.`);
  }
  await deps.store.routes.removeNumber(change.number);
  const number = { id: change.numberId, number: change.number };
  return { ok: true, change: { action: 'number.release', number, unroutedAgent: change.routedAgent } };
}

export const numberRelease: ChangeKind<'number.release'> = {
  role: 'admin',
  permits: 'release numbers',
  target: (change) => change.number,
  takesFromAgent: (change) => change.routedAgent !== undefined,
  work: (deps, change) => releaseWork(deps, change),
  verify: verifyRelease,
};
