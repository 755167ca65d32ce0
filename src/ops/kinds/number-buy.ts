// Buying a number: it spends money, so it is confirmed first; the number is locked while it is bought, and a lost
// answer is settled against the purchased list.
import type { BoughtNumber } from '../../provider/index.js';
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import type { PendingChange } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import { providerFailure, unexpectedStatus } from '../failures.js';
import type { ProviderReads } from '../provider-reads.js';
import { fail } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { ChangeKind } from './kind.js';

type Buy = Extract<PendingChange, { kind: 'number.buy' }>;

function buyWork(deps: OpsDeps, change: Buy): Work {
  return {
    action: 'number.buy',
    target: change.number,
    intent: change,
    lockKeys: [`number:${change.number}`],
    run: async () => {
      let bought: BoughtNumber;
      try {
        bought = await deps.provider.buyNumber(change.number);
      } catch (error) {
        const failure = providerFailure(error);
        if (failure.reason !== 'conflict') return failure;
        // Typically a second confirmation of the same Buy: the number was bought in the meantime.
        return fail(
          'conflict',
          `${change.number} can no longer be bought: it was bought in the meantime. (${failure.message})`,
          {
            providerKind: failure.providerKind,
          },
        );
      }
      if (bought.status !== EXPECTED_STATUS.numberBought) {
        return unexpectedStatus('the purchase', EXPECTED_STATUS.numberBought, bought.status);
      }
      return {
        ok: true,
        keep: async (deps) => {
          if (change.capabilities) await deps.store.facts.rememberNumber(bought.number, change.capabilities);
          // A number just bought routes nowhere: a record left from when the account last owned it is stale.
          await deps.store.routes.removeNumber(bought.number);
        },
        change: { action: 'number.buy', number: { id: bought.id, number: bought.number } },
        note: bought.reconciled
          ? "The provider's answer was lost; the purchase was verified in the purchased list."
          : undefined,
      };
    },
  };
}

async function verifyBuy(_deps: OpsDeps, change: Buy, reads: ProviderReads): Promise<Verified> {
  const id = (await reads.numbers()).get(change.number);
  if (id === undefined) return fail('provider', `${change.number} was not bought: the provider does not have it.`);
  return { ok: true, change: { action: 'number.buy', number: { id, number: change.number } } };
}

export const numberBuy: ChangeKind<'number.buy'> = {
  role: 'operator',
  permits: 'buy numbers',
  target: (change) => change.number,
  takesFromAgent: () => false,
  work: (deps, change) => buyWork(deps, change),
  verify: verifyBuy,
};
