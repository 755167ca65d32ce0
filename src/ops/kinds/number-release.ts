// Releasing a number: it cannot be undone, so it is confirmed first (typed, where the policy says); its routing
// record goes with it, and a lost answer is settled against the purchased list. In bulk: every number a filter picks.
import { z } from 'zod';
import { count, counted } from '../../counts.js';
import { EXPECTED_STATUS } from '../../provider/schemas.js';
import { named, type Planned, type PlannedItem, pick } from '../bulk-items.js';
import type { OpsDeps } from '../deps.js';
import { unexpectedStatus } from '../failures.js';
import { numberFilter } from '../number-filter.js';
import { WARNING, WARNING_LINE } from '../phrase.js';
import type { ProviderReads } from '../provider-reads.js';
import { regionOf } from '../regions.js';
import { fail, type Result } from '../types.js';
import type { Verified, Work } from '../work.js';
import type { BulkForm, ChangeKind } from './kind.js';
import { agentRef, numberRef } from './refs.js';

const NAME = 'number.release';

const release = z.object({
  kind: z.literal(NAME),
  numberId: z.string(),
  number: z.string(),
  routedAgent: agentRef.optional(),
});
export type Release = z.infer<typeof release>;

const released = z.object({ action: z.literal(NAME), number: numberRef, unroutedAgent: agentRef.optional() });
type Released = z.infer<typeof released>;

const auditParams = (change: Release) => ({ numberId: change.numberId });

/** A released number's records go with it, however it was found done: what comes back later starts bare. */
const forgetNumber = (change: Release) => async (deps: OpsDeps) => {
  await deps.store.routes.removeNumber(change.number);
  await deps.store.facts.forgetNumber(change.number);
  await deps.store.tags.forget(change.number);
};

function releaseWork(change: Release): Work {
  return {
    action: NAME,
    target: change.number,
    params: auditParams(change),
    intent: change,
    lockKeys: [`number:${change.number}`],
    run: async (provider) => {
      const released = await provider.releaseNumber(change.numberId);
      if (released.status !== EXPECTED_STATUS.numberReleased) {
        return unexpectedStatus('the release', EXPECTED_STATUS.numberReleased, released.status);
      }
      return {
        ok: true,
        keep: forgetNumber(change),
        change: {
          action: NAME,
          number: { id: change.numberId, number: change.number },
          unroutedAgent: change.routedAgent,
        },
      };
    },
  };
}

async function verifyRelease(_deps: OpsDeps, change: Release, reads: ProviderReads): Promise<Verified> {
  if ((await reads.numbers()).has(change.number)) {
    return fail('provider', `${change.number} was not released: it is still one of your numbers.`);
  }
  const number = { id: change.numberId, number: change.number };
  return { ok: true, change: { action: NAME, number, unroutedAgent: change.routedAgent }, keep: forgetNumber(change) };
}

export const numberRelease: ChangeKind<Release, Released> = {
  name: NAME,
  record: release,
  announced: released,
  role: 'admin',
  permits: 'release numbers',
  spends: false,
  confirm: {
    verb: 'Release',
    title: 'Confirm release',
    effect: (change) => [
      'Release ',
      { number: change.number },
      ' (id ',
      { code: change.numberId },
      "). It stops taking calls and goes back to the provider's inventory.",
      ...(change.routedAgent
        ? [...WARNING_LINE, 'It routes to ', { agent: change.routedAgent }, ': callers will reach no agent.']
        : []),
    ],
    destroys: () => true,
    kept: (change) => [{ number: change.number }, ' was not released.'],
    gerund: 'releasing',
    // A release that silences a live line asks for the number's last four digits, as a repository's name is typed to
    // delete it.
    typed: (change) =>
      change.routedAgent
        ? {
            expected: change.number.replace(/\D/g, '').slice(-4),
            prompt: `Type the last four digits of ${change.number} to release it`,
          }
        : undefined,
  },
  target: (change) => change.number,
  subject: (change) => change.number.number,
  auditParams,
  takesFromAgent: (change) => change.routedAgent !== undefined,
  work: (_deps, change) => releaseWork(change),
  verify: verifyRelease,
  did: (change) => [
    'released ',
    { ...change.number, region: regionOf(change.number.number) },
    ...(change.unroutedAgent ? [': it no longer routes to ', { agent: change.unroutedAgent }] : []),
  ],
  lookUp: (change) => `/voice audit ${change.number.number}`,
  happened: () => ['released'],
  routeEffect: ({ target }) => ({ number: target, ownership: 'released' }),
  undo: {
    never:
      "A release cannot be undone: the number went back to the provider's inventory, and buying it again is a new " +
      'purchase.',
  },
  outside: { list: 'numbers', adds: false, change: (number, id) => ({ action: NAME, number: { id, number } }) },
};

/** Every number a filter picks, or the numbers named. */
const releaseMany = z.object({
  kind: z.literal(NAME),
  filter: numberFilter.optional(),
  numbers: named,
  /** The change this plan undoes, when it is an Undo (a buy's): its correlation id, which its audit row names. */
  undoes: z.string().optional(),
});

async function planReleases(deps: OpsDeps, request: z.infer<typeof releaseMany>): Promise<Result<Planned>> {
  const routed = await deps.store.routes.agentByNumber();
  const picked = await pick(deps, routed, request);
  if (!picked.ok) return picked;
  const names = new Map((await deps.lists.agents.get()).map((agent) => [agent.id, agent.name]));
  const items = picked.picked.map(({ id, number }): PlannedItem => {
    const agentId = routed.get(number);
    const routedAgent = agentId === undefined ? undefined : { id: agentId, name: names.get(agentId) };
    const change: Release = { kind: NAME, numberId: id, number, routedAgent };
    return { change, unchanged: false };
  });
  return { ok: true, items };
}

export const numberReleaseBulk: BulkForm<typeof releaseMany, Release> = {
  request: releaseMany,
  audit: 'batch.release',
  plan: planReleases,
  again: (request, numbers) => ({ ...request, numbers }),
  gather: (changes) => ({ kind: NAME, numbers: changes.map((change) => change.number) }),
  words: {
    doing: 'Releasing',
    done: 'Released',
    apply: 'Release',
    verb: 'release',
    items: 'release of',
    plan: (_request, totals) => [
      `release ${counted(totals.change, 'number')}. They stop taking calls and go back to the provider's inventory`,
      ...(totals.taken
        ? [' · ', WARNING, `${count(totals.taken)} route to an agent: their callers will reach no agent`]
        : []),
    ],
    effect: (change) =>
      change.routedAgent
        ? ['release: routes to ', { agentName: change.routedAgent }, ', whose callers will reach no agent']
        : ['release'],
    taken: 'route to an agent: their callers will reach no agent',
    destroys: true,
  },
};
