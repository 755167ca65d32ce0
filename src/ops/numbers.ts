import type { BoughtNumber } from '../provider/index.js';
import {
  type AvailableNumberPage,
  EXPECTED_STATUS,
  type PurchasedNumber,
  phoneNumber,
  region,
  resourceId,
} from '../provider/schemas.js';
import type { Work } from './carry-out.js';
import type { ConfirmationPrompt, PendingChange } from './changes.js';
import { requestConfirmation } from './confirmations.js';
import { type OpsDeps, providerFailure, unexpectedStatus } from './context.js';
import { mayRequest } from './policies.js';
import { type Actor, fail, type Result } from './types.js';
import { validate } from './validate.js';

export interface NumberSummary extends PurchasedNumber {
  /** The agent the number routes to, from the app's own routing records. */
  agentId?: string;
}

export async function listNumbers(deps: OpsDeps): Promise<Result<{ numbers: NumberSummary[] }>> {
  try {
    const purchased = await deps.provider.listPurchasedNumbers();
    const numbers = purchased.map((entry) => ({ ...entry, agentId: deps.routes.forNumber(entry.number)?.agentId }));
    return { ok: true, numbers };
  } catch (error) {
    return providerFailure(error);
  }
}

export async function searchNumbers(
  deps: OpsDeps,
  query: { region?: string; cursor?: string },
): Promise<Result<{ page: AvailableNumberPage }>> {
  if (query.region !== undefined) {
    const checked = validate(region, query.region);
    if (!checked.ok) return { ...checked, field: 'region', message: `Region ${checked.message}` };
  }
  try {
    return { ok: true, page: await deps.provider.searchNumbers(query) };
  } catch (error) {
    return providerFailure(error);
  }
}

export async function requestBuy(
  deps: OpsDeps,
  actor: Actor,
  number: string,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const denied = await mayRequest(deps, actor, 'operator', { action: 'number.buy', target: number, correlationId });
  if (denied) return denied;
  const checked = validate(phoneNumber, number);
  if (!checked.ok) return { ...checked, field: 'number', message: `Number ${checked.message}` };
  const listed = await listNumbers(deps);
  if (!listed.ok) return listed;
  if (listed.numbers.some((entry) => entry.number === checked.value)) {
    return fail('conflict', `${checked.value} is already one of your numbers: nothing to buy.`);
  }
  return requestConfirmation(deps, actor, correlationId, { kind: 'number.buy', number: checked.value });
}

export function buyWork(deps: OpsDeps, change: Extract<PendingChange, { kind: 'number.buy' }>): Work {
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
      // A number just bought routes nowhere: a record left from when the account last owned it is stale.
      deps.routes.removeNumber(bought.number);
      return {
        ok: true,
        change: { action: 'number.buy', number: { id: bought.id, number: bought.number } },
        note: bought.reconciled
          ? "The provider's answer was lost; the purchase was verified in the purchased list."
          : undefined,
      };
    },
  };
}

/** Finds a purchased number by its E.164 form or by its provider id. */
export async function requestRelease(
  deps: OpsDeps,
  actor: Actor,
  numberOrId: string,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const denied = await mayRequest(deps, actor, 'admin', {
    action: 'number.release',
    target: numberOrId,
    correlationId,
  });
  if (denied) return denied;
  const checked = validate(resourceId, numberOrId);
  if (!checked.ok) return { ...checked, field: 'number', message: `Number or id ${checked.message}` };
  const listed = await listNumbers(deps);
  if (!listed.ok) return listed;
  const found = listed.numbers.find((entry) => entry.number === checked.value || entry.id === checked.value);
  if (!found) {
    return fail('not_found', `${checked.value} is not one of your numbers: /voice numbers lists them.`);
  }
  const routedAgent = found.agentId ? { id: found.agentId, name: await agentName(deps, found.agentId) } : undefined;
  return requestConfirmation(deps, actor, correlationId, {
    kind: 'number.release',
    numberId: found.id,
    number: found.number,
    routedAgent,
  });
}

export function releaseWork(deps: OpsDeps, change: Extract<PendingChange, { kind: 'number.release' }>): Work {
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
      deps.routes.removeNumber(change.number);
      return {
        ok: true,
        change: {
          action: 'number.release',
          number: { id: change.numberId, number: change.number },
          unroutedAgent: change.routedAgent,
        },
      };
    },
  };
}

/** An agent's name for a warning, when the provider can tell it; the warning stands without it. */
export async function agentName(deps: OpsDeps, agentId: string): Promise<string | undefined> {
  try {
    return (await deps.provider.listAgents()).find((agent) => agent.id === agentId)?.name;
  } catch {
    return undefined;
  }
}
