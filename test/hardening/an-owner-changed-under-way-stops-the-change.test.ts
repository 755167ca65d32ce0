// An owner changed after a change's last checks and before it takes its locks: the Confirm (or the plan's Apply)
// found the number in reach, an admin gives it to another team at that moment, and the change, checked again under
// its locks right before the provider call, is refused there. It closes as failed with the owner's code, audited,
// and the provider is sent nothing for it. Played on the operations with their real store and the sandbox over HTTP;
// the admin's change is let in at the exact moment by the locks the change asks for.
import { expect, it } from 'vitest';
import type { Actor, ResourceLocks } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { applyBatch, planBatch } from '../../src/ops/batches.js';
import { confirm } from '../../src/ops/confirmations.js';
import { changeLabels } from '../../src/ops/labels.js';
import { mapNumber } from '../../src/ops/routing.js';
import { type OpsBed, useOpsDeps } from '../harness/ops-deps.js';

const SALES = 'SSALES';
const SUPPORT = 'SSUPPORT';
const as = (userId: string): Actor => ({ userId, channelId: 'COPS', source: 'command' });
const ADMIN = as('UADMIN');
const OMAR = as('UOMAR');

const bed = useOpsDeps({
  seed: { agents: 2, numbers: 3 },
  settings: { admins: ['UADMIN'], operators: [SALES, SUPPORT] },
  groups: { [SALES]: ['UOMAR'], [SUPPORT]: ['USUE'] },
});

/** The bed's deps with locks that, once armed, let `meanwhile` commit before the next change takes its locks. */
function racing({ deps: plain }: OpsBed) {
  let meanwhile: (() => Promise<unknown>) | undefined;
  const locks = new Proxy(plain.locks, {
    get(target, name) {
      if (name !== 'tryWith') {
        const value = Reflect.get(target, name, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return async (...args: Parameters<ResourceLocks['tryWith']>) => {
        const first = meanwhile;
        meanwhile = undefined;
        await first?.();
        return target.tryWith(...args);
      };
    },
  });
  /** Gives `target` to `owner` as an admin. */
  const give = async (target: string, owner: string) => {
    const given = await changeLabels(plain, ADMIN, { target, owner }, newCorrelationId());
    if (!given.ok) throw new Error(given.message);
  };
  return {
    deps: { ...plain, locks },
    give,
    /** Gives `target` to `owner` once the next change asks for its locks. */
    beforeLocks(target: string, owner: string) {
      meanwhile = () => give(target, owner);
    },
  };
}

async function scene({ outside }: OpsBed) {
  const [numbers, agents] = await Promise.all([outside.listPurchasedNumbers(), outside.listAgents()]);
  const [first, second] = agents;
  if (numbers.length < 3 || !first || !second) throw new Error('the sandbox was seeded with three numbers, two agents');
  return { numbers: numbers.map((entry) => entry.number), agents: [first.id, second.id] as const };
}

it('a re-route whose number is given to another team after its Confirm is refused under its locks; nothing sent', async () => {
  const race = racing(bed());
  const { numbers, agents } = await scene(bed());
  const number = numbers[0] ?? '';
  await race.give(number, SALES);
  expect(
    await mapNumber(race.deps, OMAR, { phoneNumber: number, agentId: agents[0] }, newCorrelationId()),
  ).toMatchObject({ ok: true, status: 'done' });
  const correlationId = newCorrelationId();
  const asked = await mapNumber(race.deps, OMAR, { phoneNumber: number, agentId: agents[1] }, correlationId);
  if (!asked.ok || asked.status !== 'needs_confirmation') throw new Error('a re-route asks for a Confirm');
  const maps = bed().sandbox.requestCount('mapNumber');

  race.beforeLocks(number, SUPPORT);
  const done = await confirm(race.deps, OMAR, asked.prompt.confirmationId);

  expect(done).toMatchObject({ ok: false, reason: 'denied', code: 'owner' });
  expect(done.ok ? '' : done.message).toContain(`${number} is owned by the user group ${SUPPORT}`);
  expect(bed().sandbox.requestCount('mapNumber')).toBe(maps);
  const rows = await race.deps.store.audit.ofRequest(correlationId);
  expect(rows.map((row) => [row.outcome, row.errorCode])).toEqual([
    ['requested', undefined],
    ['confirmed', undefined],
    ['failed', 'owner'],
  ]);
  expect(await race.deps.store.intents.get(correlationId)).toMatchObject({ outcome: 'failed' });
  expect((await race.deps.store.routes.agentByNumber()).get(number)).toBe(agents[0]);
});

it("a batch's item given to another team after Apply is refused under the batch's locks; the others are made", async () => {
  const race = racing(bed());
  const { numbers, agents } = await scene(bed());
  for (const number of numbers) await race.give(number, SALES);
  const planned = await planBatch(race.deps, OMAR, { kind: 'routing.map', agentId: agents[0], numbers });
  if (!planned.ok) throw new Error(planned.message);
  const [given = '', ...rest] = numbers;

  race.beforeLocks(given, SUPPORT);
  const applied = await applyBatch(race.deps, OMAR, planned.view.id, { onProgress: () => {} });

  expect(applied).toMatchObject({ ok: true });
  const items = await race.deps.store.batches.itemsIn(planned.view.id, ['failed', 'succeeded']);
  const states = Object.fromEntries(items.map((item) => [JSON.stringify(item.change).match(/\+\d+/)?.[0], item.state]));
  expect(states).toEqual(Object.fromEntries([[given, 'failed'], ...rest.map((number) => [number, 'succeeded'])]));
  expect(bed().sandbox.requestCount('mapNumber')).toBe(rest.length);
  const failed = (await race.deps.store.audit.ofRequest(planned.view.id)).filter(
    (row) => row.action === 'routing.map' && row.outcome === 'failed',
  );
  expect(failed.map((row) => [row.target, row.errorCode])).toEqual([[given, 'owner']]);
  const routes = await race.deps.store.routes.agentByNumber();
  expect(numbers.map((number) => routes.get(number))).toEqual([undefined, ...rest.map(() => agents[0])]);
});
