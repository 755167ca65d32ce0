// For any labels and owners on numbers and agents, any user-group memberships, any person (admin, operator, viewer)
// and any request (a release, a map, an agent's deletion, a label change, a bulk map), no change reaches the provider
// (or the app's tags) unless the person may change every number and agent it touches (an admin, or someone with the
// role the change needs for whom each is owned by nobody or by a team they are in), and a non-admin gives nothing to a
// team they are not in. Conversely, such a person is never refused for an owner. Each run drives the real operations
// against a fresh sandbox over HTTP and a fresh store.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { requestDeleteAgent } from '../../src/ops/agents.js';
import type { Actor, OpsDeps } from '../../src/ops/api.js';
import { newCorrelationId } from '../../src/ops/audit-rows.js';
import { applyBatch, planBatch } from '../../src/ops/batches.js';
import type { ConfirmationPrompt } from '../../src/ops/changes.js';
import { confirm } from '../../src/ops/confirmations.js';
import { changeLabels } from '../../src/ops/labels.js';
import { requestRelease } from '../../src/ops/numbers.js';
import { mapNumber } from '../../src/ops/routing.js';
import type { Role } from '../../src/ops/types.js';
import type { RouteName } from '../../src/sandbox/faults.js';
import type { Tags } from '../../src/store/tags.js';
import { type OpsBed, openOpsBed } from '../harness/ops-deps.js';
import { useTempDatabases } from '../store/helpers.js';

const TEAMS = ['SSALES', 'SSUPPORT'] as const;
const PERSON = 'UPERSON';
const ADMIN: Actor = { userId: 'UADMIN', channelId: 'COPS', source: 'command' };
const NUMBERS = 4;
const AGENTS = 3;
/** The first numbers route to the agents in turn, at the provider and in the app's records. */
const ROUTED = 2;
const CHANGING: RouteName[] = ['mapNumber', 'releaseNumber', 'buyNumber', 'createAgent', 'deleteAgent'];
/** The provider's changing requests so far. */
const changesSent = ({ sandbox }: OpsBed): number =>
  CHANGING.reduce((sum, route) => sum + sandbox.requestCount(route), 0);

const owner = fc.constantFrom(undefined, ...TEAMS);
const tags = fc.record({ labels: fc.subarray(['vip', 'night', 'eu']), owner });
const request = fc.oneof(
  fc.record({ kind: fc.constant('release' as const), number: fc.nat(NUMBERS - 1) }),
  fc.record({ kind: fc.constant('map' as const), number: fc.nat(NUMBERS - 1), agent: fc.nat(AGENTS - 1) }),
  fc.record({ kind: fc.constant('delete' as const), agent: fc.nat(AGENTS - 1) }),
  fc.record({
    kind: fc.constant('label' as const),
    target: fc.nat(NUMBERS + AGENTS - 1),
    label: fc.constantFrom('vip', 'night'),
    owner: fc.constantFrom(undefined, null, ...TEAMS),
  }),
  fc.record({
    kind: fc.constant('bulk map' as const),
    numbers: fc.uniqueArray(fc.nat(NUMBERS - 1), { minLength: 1 }),
    agent: fc.nat(AGENTS - 1),
  }),
);
const scene = fc.record({
  numberTags: fc.array(tags, { minLength: NUMBERS, maxLength: NUMBERS }),
  agentTags: fc.array(tags, { minLength: AGENTS, maxLength: AGENTS }),
  role: fc.constantFrom<Role>('admin', 'operator', 'viewer'),
  teams: fc.subarray([...TEAMS]),
  request,
});
type Scene = typeof scene extends fc.Arbitrary<infer T> ? T : never;

const temp = useTempDatabases();

/** A fresh world: the person granted the role directly, or as a member of a team, which the settings list as operators. */
async function worldOf(run: number, { role, teams }: Scene) {
  return openOpsBed(await temp.target(`run-${run}.db`), {
    seed: { agents: AGENTS, numbers: NUMBERS, routed: ROUTED },
    settings: {
      admins: ['UADMIN', ...(role === 'admin' ? [PERSON] : [])],
      operators: [...TEAMS, ...(role === 'operator' ? [PERSON] : [])],
    },
    groups: Object.fromEntries(TEAMS.map((team) => [team, teams.includes(team) ? [PERSON] : []])),
  });
}

/** What the request would change, and the role it needs. */
function touchedBy(s: Scene, numbers: string[], agents: string[]): { touched: string[]; role: Role } {
  const { request } = s;
  switch (request.kind) {
    case 'release':
      return { touched: [numbers[request.number] ?? ''], role: 'admin' };
    case 'map':
      return { touched: [numbers[request.number] ?? '', agents[request.agent] ?? ''], role: 'operator' };
    case 'delete':
      return { touched: [agents[request.agent] ?? ''], role: 'admin' };
    case 'label':
      return { touched: [[...numbers, ...agents][request.target] ?? ''], role: 'operator' };
    case 'bulk map':
      return {
        touched: [agents[request.agent] ?? '', ...request.numbers.map((i) => numbers[i] ?? '')],
        role: 'operator',
      };
  }
}

/** The person's role as the settings grant it: an operator too by being in a team the settings list. */
const heldRole = ({ role, teams }: Scene): Role =>
  role === 'admin' ? 'admin' : role === 'operator' || teams.length > 0 ? 'operator' : 'viewer';

const ranks: Role[] = ['viewer', 'operator', 'admin'];

/** Whether the person may change a thing with these tags: admins anything, others what nobody or their team owns. */
const inReach = (s: Scene, found: Tags | undefined): boolean =>
  heldRole(s) === 'admin' || found?.owner === undefined || s.teams.includes(found.owner as (typeof TEAMS)[number]);

/** Whether a label change gives its target to a team the person is not in, which only an admin may. */
const givesAway = (s: Scene): boolean =>
  s.request.kind === 'label' &&
  typeof s.request.owner === 'string' &&
  heldRole(s) !== 'admin' &&
  !s.teams.includes(s.request.owner as (typeof TEAMS)[number]);

/** Confirms a change that asks for it, as the person who asked. */
async function confirmed(deps: OpsDeps, actor: Actor, asked: { ok: boolean; prompt?: ConfirmationPrompt }) {
  if (asked.ok && asked.prompt) await confirm(deps, actor, asked.prompt.confirmationId);
}

/** Asks for the request as the person, and confirms or applies whatever asks for it. */
async function act({ deps }: OpsBed, s: Scene, numbers: string[], agents: string[]): Promise<void> {
  const person: Actor = { userId: PERSON, channelId: 'COPS', source: 'command' };
  const { request } = s;
  const id = newCorrelationId();
  switch (request.kind) {
    case 'release':
      return confirmed(deps, person, await requestRelease(deps, person, numbers[request.number] ?? '', id));
    case 'map': {
      const input = { phoneNumber: numbers[request.number] ?? '', agentId: agents[request.agent] ?? '' };
      const mapped = await mapNumber(deps, person, input, id);
      return confirmed(deps, person, mapped.ok && mapped.status === 'needs_confirmation' ? mapped : { ok: false });
    }
    case 'delete': {
      const asked = await requestDeleteAgent(deps, person, agents[request.agent] ?? '', id);
      return confirmed(deps, person, asked.ok && asked.status === 'needs_confirmation' ? asked : { ok: false });
    }
    case 'label': {
      const target = [...numbers, ...agents][request.target] ?? '';
      const owner = request.owner === undefined ? {} : { owner: request.owner };
      await changeLabels(deps, person, { target, add: [request.label], ...owner }, id);
      return;
    }
    case 'bulk map': {
      const asked = {
        kind: 'routing.map',
        agentId: agents[request.agent] ?? '',
        numbers: request.numbers.map((i) => numbers[i] ?? ''),
      };
      const planned = await planBatch(deps, person, asked);
      if (planned.ok) await applyBatch(deps, person, planned.view.id, { onProgress: () => {} });
    }
  }
}

it('no change reaches the provider unless the person may change everything it touches', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(scene, async (s) => {
      const { bed, close } = await worldOf(run++, s);
      try {
        const { deps, outside } = bed;
        const [numbers, agents] = await Promise.all([
          outside.listPurchasedNumbers().then((list) => list.map((entry) => entry.number)),
          outside.listAgents().then((list) => list.map((entry) => entry.id)),
        ]);
        for (const [index, number] of numbers.slice(0, ROUTED).entries()) {
          await deps.store.routes.set({
            phoneNumber: number,
            agentId: agents[index % AGENTS] ?? '',
            updatedBy: 'USEED',
          });
        }
        const subjects = [...numbers, ...agents];
        const given = [...s.numberTags, ...s.agentTags];
        for (const [index, subject] of subjects.entries())
          await deps.store.tags.set(subject, given[index] ?? { labels: [] }, ADMIN.userId);
        const tagsBefore = await deps.store.tags.all();
        const sentBefore = changesSent(bed);

        await act(bed, s, numbers, agents);

        const sent = changesSent(bed) - sentBefore;
        const { touched, role } = touchedBy(s, numbers, agents);
        const reaches = (subject: string) => inReach(s, tagsBefore.get(subject));
        const roleHeld = ranks.indexOf(heldRole(s)) >= ranks.indexOf(role);
        const rows = await deps.store.audit.recent(1_000);
        if (roleHeld && touched.every(reaches) && !givesAway(s)) {
          expect(
            rows.filter((row) => row.errorCode === 'owner'),
            'never refused for an owner',
          ).toEqual([]);
        } else if (s.request.kind !== 'bulk map' || !roleHeld || !reaches(touched[0] ?? '')) {
          // Out of reach as a whole (a bulk map's agent is its first subject): nothing at all is made.
          expect(sent, 'nothing sent').toBe(0);
          expect(await deps.store.tags.all(), 'no tags changed').toEqual(tagsBefore);
        }
        // A bulk map's items are its numbers, each with the agent: only those in reach are made, one call each.
        const made = rows.filter((row) => row.action === 'routing.map' && row.outcome === 'succeeded');
        expect(
          made.every((row) => reaches(row.target ?? '')),
          'only numbers in reach are routed',
        ).toBe(true);
        if (s.request.kind !== 'release' && s.request.kind !== 'delete') expect(sent).toBe(made.length);
      } finally {
        await close();
      }
    }),
    { numRuns: 30 },
  );
});
