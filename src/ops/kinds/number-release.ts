// Releasing a number: it cannot be undone, so it is confirmed first (typed, where the policy says); its routing
// record goes with it, and a lost answer is settled against the purchased list. In bulk: every number a filter picks.
import { z } from 'zod';
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import { named, type Planned, type PlannedItem, pick } from '../bulk-items.js';
import type { PendingChange } from '../changes.js';
import type { OpsDeps } from '../deps.js';
import { unexpectedStatus } from '../failures.js';
import { numberFilter } from '../number-filter.js';
import type { ProviderReads } from '../provider-reads.js';
import { fail, type Result } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { BulkForm, ChangeKind } from './kind.js';

type Release = Extract<PendingChange, { kind: 'number.release' }>;

const auditParams = (change: Release) => ({ numberId: change.numberId });

function releaseWork(deps: OpsDeps, change: Release): Work {
  return {
    action: 'number.release',
    target: change.number,
    params: auditParams(change),
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
  auditParams,
  takesFromAgent: (change) => change.routedAgent !== undefined,
  work: (deps, change) => releaseWork(deps, change),
  verify: verifyRelease,
};

/** Every number a filter picks, or the numbers named. */
const releaseMany = z.object({ kind: z.literal('number.release'), filter: numberFilter.optional(), numbers: named });

async function planReleases(deps: OpsDeps, request: z.infer<typeof releaseMany>): Promise<Result<Planned>> {
  const routed = await deps.store.routes.agentByNumber();
  const picked = await pick(deps.lists, routed, request);
  if (!picked.ok) return picked;
  const names = new Map((await deps.lists.agents.get()).map((agent) => [agent.id, agent.name]));
  const items = picked.picked.map(({ id, number }): PlannedItem => {
    const agentId = routed.get(number);
    const routedAgent = agentId === undefined ? undefined : { id: agentId, name: names.get(agentId) };
    return { change: { kind: 'number.release', numberId: id, number, routedAgent }, unchanged: false };
  });
  return { ok: true, items };
}

export const numberReleaseBulk: BulkForm<typeof releaseMany> = {
  request: releaseMany,
  audit: 'batch.release',
  plan: planReleases,
  again: (request, numbers) => ({ ...request, numbers }),
};
