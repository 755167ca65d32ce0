// An agent's creation asked for by a step whose person Slack did not vouch for (docs/workflows.md): it is not made at
// once, as the command makes it, but asked of the person named, and made only on their own click. The ask is the
// step's linked request (one `requested` row naming who it asks); a click or its expiry takes it once
// (WorkflowSteps.take), so that of two clicks, or a click and the expiry, one acts.
import { z } from 'zod';
import { DEFAULT_CONFIRMATION_TTL_MS } from '../store/confirmations.js';
import type { StepOrigin } from '../store/records.js';
import type { StepRecord } from '../store/workflow-steps.js';
import { agentRequestChecked, createAgent } from './agents.js';
import { attempt, deny, newCorrelationId, record } from './audit-rows.js';
import type { Done } from './carry-out.js';
import type { OpsDeps } from './deps.js';
import { KIND } from './kinds/index.js';
import { type Actor, fail, type Result } from './types.js';

export interface AgentInput {
  name: string;
  language: string;
}

/** What the ask's row keeps: the agent asked for, and who must click. */
const askRow = z.object({
  name: z.string(),
  language: z.string(),
  askedOf: z.string(),
  ranBy: z.string().nullish(),
  namedChannelId: z.string().optional(),
});

export const ASK_EXPIRED = 'The creation was not confirmed within 10 minutes: nothing was changed.';

/** Asks the person named to confirm an agent's creation: refused as the command would be, else audited as asked. */
export async function askToCreateAgent(
  deps: OpsDeps,
  actor: Actor,
  executionId: string,
  input: AgentInput,
  correlationId: string,
): Promise<Result<object>> {
  await deps.store.steps.link(executionId, correlationId);
  const checked = await agentRequestChecked(deps, actor, input, correlationId);
  if (!checked.ok) return checked;
  const params = { ...checked.value, askedOf: actor.userId };
  await record(deps, actor, correlationId, { action: KIND.createAgent, outcome: 'requested', params });
  return { ok: true };
}

/** The ask a step waits on, while it waits: what it asks for, of whom, and as which step (who ran it, where). */
async function pendingAsk(
  deps: OpsDeps,
  step: StepRecord,
): Promise<{ input: AgentInput; askedOf: string; origin: StepOrigin } | undefined> {
  // The ask's own row; a click or an expiry moves the step off it (take), so while the step is on it, it waits.
  const row = (await deps.store.audit.ofRequest(step.correlationId ?? '')).find(
    (candidate) => candidate.action === KIND.createAgent && candidate.outcome === 'requested',
  );
  const asked = askRow.safeParse(row?.params);
  if (step.endedAt || !asked.success) return undefined;
  const { name, language, askedOf, ranBy, namedChannelId } = asked.data;
  const origin = {
    workflowExecutionId: step.workflowExecutionId,
    executionId: step.executionId,
    ...(ranBy ? { ranBy } : {}),
    ...(namedChannelId ? { namedChannelId } : {}),
  };
  return { input: { name, language }, askedOf, origin };
}

/**
 * The person's click on an ask: only the person asked may answer, once, within the 10 minutes a confirmation lasts.
 * Create makes the agent as them (their role checked again), Cancel ends the step; either is audited as the step's,
 * naming who confirmed.
 */
export async function answerAsk(
  deps: OpsDeps,
  clicker: Actor,
  executionId: string,
  verdict: 'create' | 'cancel',
): Promise<Result<{ done?: Done }>> {
  const step = await deps.store.steps.get(executionId);
  const ask = step ? await pendingAsk(deps, step) : undefined;
  if (!step || !ask) return fail('already_used', 'This request was answered already, or its workflow step has ended.');
  const from = step.correlationId ?? '';
  if (ask.askedOf !== clicker.userId) {
    const failure = fail('wrong_user', `This asks ${ask.askedOf} to confirm, not you: nothing was changed.`);
    const attempt = { action: KIND.createAgent, correlationId: step.correlationId ?? '' };
    return deny(deps, { ...clicker, step: ask.origin }, attempt, failure, { reason: 'not the person asked' });
  }
  if (deps.now().getTime() - Date.parse(step.startedAt) > DEFAULT_CONFIRMATION_TTL_MS) {
    return fail('expired', ASK_EXPIRED);
  }
  const actor: Actor = {
    ...clicker,
    channelId: undefined,
    source: 'workflow',
    step: verdict === 'create' ? { ...ask.origin, confirmedBy: clicker.userId } : ask.origin,
  };
  const taken = (to: string) => deps.store.steps.take(executionId, from, to);
  if (verdict === 'cancel') {
    const to = newCorrelationId();
    if (!(await taken(to))) return fail('already_used', 'This request was answered already.');
    const why = fail('cancelled', 'The creation was cancelled before it was made: nothing was changed.');
    await record(deps, actor, to, {
      action: KIND.createAgent,
      outcome: 'cancelled',
      params: { ...ask.input },
      error: why,
    });
    return { ok: true };
  }
  const created = await attempt(deps, actor, { action: KIND.createAgent }, async (to) => {
    if (!(await taken(to))) return fail('already_used', 'This request was answered already.');
    return createAgent(deps, actor, ask.input, to);
  });
  return created.ok ? { ok: true, done: created } : created;
}

/** An ask nobody answered in time: it expires (taken once, as a click would take it), and is audited so. */
export async function expireAsk(deps: OpsDeps, step: StepRecord): Promise<boolean> {
  const ask = await pendingAsk(deps, step);
  const to = newCorrelationId();
  if (!ask || !(await deps.store.steps.take(step.executionId, step.correlationId ?? '', to))) return false;
  const actor: Actor = { userId: ask.askedOf, source: 'system', step: ask.origin };
  const why = fail('expired', ASK_EXPIRED);
  await record(deps, actor, to, { action: KIND.createAgent, outcome: 'expired', params: { ...ask.input }, error: why });
  return true;
}
