// Changes the app started but never saw the end of (it stopped mid-call): what really happened is read from the
// provider, audited as reconciled, corrected in the routing records, announced once, and told to the requester.

import { tokenLostNote } from '../ops/agents.js';
import { type Change, subjectOf } from '../ops/announcements.js';
import type { Done } from '../ops/carry-out.js';
import { batchItemOf, type ChangeIntent, changeIntent, requestIdOf, targetOf } from '../ops/changes.js';
import { atomically, type OpsDeps, providerFailure, record } from '../ops/context.js';
import { runsAnywhere } from '../ops/locks.js';
import { announce } from '../ops/notify.js';
import { type Actor, type Failure, fail, storedActor } from '../ops/types.js';
import { agentsNamedSince } from '../provider/client.js';
import { ProviderError } from '../provider/errors.js';
import type { Agent } from '../provider/schemas.js';
import type { Intent } from '../store/intents.js';

/** How a reconciled change ended, for its requester. */
export type Reconciled = { ok: true; change: Change; note?: string } | Failure;

/** Tells the requester of an interrupted change how it ended; the Slack layer picks the route. */
export type TellRequester = (
  to: { actor: Actor; replyAddress?: string; openedAt: string },
  outcome: Reconciled,
) => Promise<void>;

/** The provider's current state, read at most once per pass and only when an intent needs it. */
class ProviderReads {
  #numbers?: Promise<Map<string, string>>;
  #agents?: Promise<Agent[]>;

  constructor(private readonly deps: OpsDeps) {}

  numbers(): Promise<Map<string, string>> {
    this.#numbers ??= this.deps.provider
      .listPurchasedNumbers()
      .then((numbers) => new Map(numbers.map((entry) => [entry.number, entry.id])));
    return this.#numbers;
  }

  agents(): Promise<Agent[]> {
    this.#agents ??= this.deps.provider.listAgents();
    return this.#agents;
  }
}

/**
 * Resolves the open intents whose change runs nowhere: each one opened before `settledBefore`, and, however young,
 * each one whose replica has died. A provider that cannot be read leaves the rest open for the next pass (the error
 * is thrown to the caller).
 */
export async function resolveIntents(deps: OpsDeps, tell: TellRequester, settledBefore: Date): Promise<number> {
  const open = await underWayNowhere(deps, await deps.store.intents.openedBefore(deps.now()));
  const reads = new ProviderReads(deps);
  let resolved = 0;
  for (const intent of open) {
    const settled = intent.openedAt <= settledBefore.toISOString();
    if (!settled && !(await orphaned(deps, intent))) continue;
    if (await resolveOne(deps, tell, reads, intent, settled)) resolved += 1;
  }
  return resolved;
}

/** Whether the replica that opened the intent has died (intents from before replicas were named cannot say). */
async function orphaned(deps: OpsDeps, intent: Intent): Promise<boolean> {
  const { liveness } = deps.store;
  return (
    intent.replica !== undefined && intent.replica !== liveness.replica && !(await liveness.isAlive(intent.replica))
  );
}

/**
 * The open intents whose change is not under way anywhere: neither in this process nor, holding its lease, in
 * another replica. An item of a batch is under way while its batch runs. What is left was stopped by a process that
 * died.
 */
export async function underWayNowhere(deps: OpsDeps, open: Intent[]): Promise<Intent[]> {
  const stopped: Intent[] = [];
  for (const intent of open) if (!(await runsAnywhere(deps, requestIdOf(intent.correlationId)))) stopped.push(intent);
  return stopped;
}

/**
 * Resolves one intent; false when it is left open. A dead replica's change younger than its provider call's timeout
 * may still reach the provider: it is resolved now only if the provider shows it done, otherwise once `settled`.
 */
async function resolveOne(
  deps: OpsDeps,
  tell: TellRequester,
  reads: ProviderReads,
  intent: Intent,
  settled: boolean,
): Promise<boolean> {
  const change = changeIntent.parse(intent.change);
  const requester = storedActor.parse(intent.actor);
  // The requester made the same change again since, and it went through: that one was answered and announced.
  const target = targetOf(change);
  const redone = (await deps.store.audit.changesMade(intent.openedAt, deps.now().toISOString())).some(
    (made) => made.action === change.kind && made.target === target,
  );
  if (redone) {
    await closeQuietly(deps, requester, intent, change);
    return true;
  }
  const outcome = await outcomeOf(deps, reads, change, requester.userId);
  if (!outcome.ok && !settled) return false;
  // An item of a batch is told with its batch (see interruptAbandoned), never on its own.
  const item = batchItemOf(intent.correlationId);
  // The reconciler acts for the requester: their change, their name, marked as reconciled by the system.
  const actor: Actor = { ...requester, source: 'system' };
  const closed = await atomically(deps, async (deps) => {
    const closing = await deps.store.intents.close(intent.correlationId, outcome.ok ? 'succeeded' : 'failed');
    if (!closing) return false; // resolved meanwhile by another pass or process
    if (item) {
      const error = outcome.ok ? undefined : outcome.message;
      await deps.store.batches.finishItem(item.batchId, item.seq, outcome.ok ? 'succeeded' : 'failed', error);
    }
    await record(deps, actor, requestIdOf(intent.correlationId), {
      action: change.kind,
      outcome: outcome.ok ? 'succeeded' : 'failed',
      target: outcome.ok ? subjectOf(outcome.change) : targetOf(change),
      params: { reconciled: true },
      error: outcome.ok ? undefined : outcome,
    });
    return true;
  });
  if (!closed) return false;
  deps.lists.invalidate();
  deps.logger.info(
    { correlationId: intent.correlationId, action: change.kind, outcome: outcome.ok ? 'succeeded' : 'failed' },
    'reconciled a change the app did not see to its end',
  );
  if (item) return true;
  if (outcome.ok) {
    const done: Done = { change: outcome.change, correlationId: intent.correlationId };
    await announce(deps, actor, done);
  }
  await tell({ actor: requester, replyAddress: intent.replyAddress, openedAt: intent.openedAt }, outcome).catch(
    (error: unknown) =>
      deps.logger.warn({ err: error, correlationId: intent.correlationId }, 'could not tell the requester'),
  );
  return true;
}

function closeQuietly(deps: OpsDeps, requester: Actor, intent: Intent, change: ChangeIntent): Promise<void> {
  return atomically(deps, async (deps) => {
    if (!(await deps.store.intents.close(intent.correlationId, 'succeeded'))) return;
    await record(deps, { ...requester, source: 'system' }, requestIdOf(intent.correlationId), {
      action: change.kind,
      outcome: 'succeeded',
      target: targetOf(change),
      params: { reconciled: true, madeAgainBy: 'a later request' },
    });
  });
}

/** What the provider says became of the change. */
async function outcomeOf(deps: OpsDeps, reads: ProviderReads, change: ChangeIntent, by: string): Promise<Reconciled> {
  switch (change.kind) {
    case 'number.buy': {
      const id = (await reads.numbers()).get(change.number);
      if (id === undefined) return fail('provider', `${change.number} was not bought: the provider does not have it.`);
      return { ok: true, change: { action: 'number.buy', number: { id, number: change.number } } };
    }
    case 'number.release': {
      if ((await reads.numbers()).has(change.number)) {
        return fail('provider', `${change.number} was not released: it is still one of your numbers.`);
      }
      await deps.store.routes.removeNumber(change.number);
      const number = { id: change.numberId, number: change.number };
      return { ok: true, change: { action: 'number.release', number, unroutedAgent: change.routedAgent } };
    }
    case 'agent.delete': {
      const agent = { id: change.agentId, name: change.agentName };
      if ((await reads.agents()).some((listed) => listed.id === change.agentId)) {
        return fail('provider', `Agent ${change.agentName} (${change.agentId}) was not deleted: it still exists.`);
      }
      return { ok: true, change: { action: 'agent.delete', agent } };
    }
    case 'routing.map':
      return remap(deps, change, by);
    case 'agent.create':
      return created(await reads.agents(), change);
  }
}

/** Whether the agents list shows the creation: one new agent of its name. Its token is lost either way. */
function created(agents: Agent[], change: Extract<ChangeIntent, { kind: 'agent.create' }>): Reconciled {
  const interrupted = `Creating agent "${change.name}" was interrupted`;
  // Intents written before the agents of the name were noted cannot tell this creation from the others.
  if (!change.namedBefore) {
    return fail(
      'provider',
      `${interrupted}: it may exist all the same. Check \`/voice agents\`; if it is listed, its token was lost, so ` +
        'delete it and create it again.',
      { code: 'unverified' },
    );
  }
  const appeared = agentsNamedSince(agents, change.name, change.namedBefore);
  const [agent] = appeared;
  if (!agent) return fail('provider', `${interrupted}, and it was not created: no new agent of that name is listed.`);
  if (appeared.length > 1) {
    return fail(
      'provider',
      `${interrupted}: ${appeared.length} new agents of that name are listed, so someone else made one meanwhile. ` +
        'Check `/voice agents`: one of them is this one, and its token was lost.',
      { code: 'unverified' },
    );
  }
  return {
    ok: true,
    change: { action: 'agent.create', agent: { id: agent.id, name: agent.name, language: change.language } },
    note: tokenLostNote,
  };
}

/** Routing cannot be read, but mapping a number to the same agent twice has one effect: the map is sent again. */
async function remap(
  deps: OpsDeps,
  change: Extract<ChangeIntent, { kind: 'routing.map' }>,
  by: string,
): Promise<Reconciled> {
  try {
    const routed = await deps.provider.mapNumber({ phone_number: change.phoneNumber, agent_id: change.agentId });
    if (routed.status !== 'connected') {
      return fail('provider', `${change.phoneNumber} was not routed: the provider answered "${routed.status}".`);
    }
  } catch (error) {
    if (error instanceof ProviderError && ['timeout', 'network', 'unavailable', 'rate_limited'].includes(error.kind)) {
      throw error; // the provider is not answering: try again on the next pass
    }
    const failure = providerFailure(error);
    return fail(failure.reason, `${change.phoneNumber} was not routed to ${change.agentName}: ${failure.message}`);
  }
  await deps.store.routes.set({ phoneNumber: change.phoneNumber, agentId: change.agentId, updatedBy: by });
  const agent = { id: change.agentId, name: change.agentName };
  return {
    ok: true,
    change: { action: 'routing.map', number: change.phoneNumber, agent, previousAgent: change.previousAgent },
  };
}
