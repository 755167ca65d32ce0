// Workflow Builder steps: each runs its command's operation as the person its builder names (`user_id`), with the
// same guardrails. Slack vouches for that person only through the step's interactor: otherwise nothing changes
// without the named person's own click (docs/workflows.md). A step waiting on a plan ends with it (ops/steps.ts).
import { z } from 'zod';
import { type Actor, type BulkRequest, batchAction, type Done, KIND, oneAgentOnly } from '../../ops/api.js';
import { slackErrorCode } from '../clients.js';
import { replyTo, type SlackDeps } from '../deps.js';
import { deliver } from '../flows.js';
import { ACTION } from '../ids.js';
import type { ListenerRouter } from '../router.js';
import { checkInputs, STEP_INPUTS, type StepInputs, type StepName } from '../step-inputs.js';
import { messageSurface, type Surface } from '../surfaces.js';
import { textMessage } from '../views/blocks.js';
import { agentAskMessage, type StepPerson, stepPlanMessage } from '../views/steps.js';
import { type Requester, requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, replyFor } from './actions.js';

/** The function_executed event, as Slack delivers it (see test/e2e/workflow-steps.test.ts for the source). */
const functionExecuted = z.object({
  event: z.object({
    function_execution_id: z.string(),
    workflow_execution_id: z.string(),
    function: z.object({ callback_id: z.string() }),
    inputs: z.record(z.string(), z.unknown()).optional(),
    /** The workflow token: messages posted with it carry the step's function_data in their interactions. */
    bot_access_token: z.string().optional(),
  }),
});
type FunctionExecuted = z.infer<typeof functionExecuted>['event'];

/** A step under way: who asked (and whether Slack vouches for them), its execution, and the token Slack gave it. */
interface Running {
  deps: SlackDeps;
  actor: Actor;
  person: StepPerson;
  executionId: string;
  workflowToken?: string;
}

/** What each step does with its checked inputs. */
const RUNS: { [N in StepName]: (step: Running, inputs: StepInputs<N>) => Promise<void> } = {
  buy_numbers: (step, { region, count, digits }) =>
    planAndAsk(step, { kind: KIND.buy, region, count, ...(digits ? { digits } : {}) }),
  route_numbers: async (step, inputs) => {
    const numbers = await numbersFor(step, inputs.numbers, ACTIONS.route_numbers);
    const agentId = numbers && (await agentIdFor(step, inputs.agent_id, ACTIONS.route_numbers));
    if (numbers && agentId) await planAndAsk(step, { kind: KIND.map, agentId, ...numbers });
  },
  release_numbers: async (step, inputs) => {
    const numbers = await numbersFor(step, inputs.numbers, ACTIONS.release_numbers);
    if (numbers) await planAndAsk(step, { kind: KIND.release, ...numbers });
  },
  create_agent: createAgent,
  export_routing: exportRouting,
};

type StepNumbers = StepInputs<'release_numbers'>['numbers'];

/** The change each step asks for, for the audit of an input refused. */
const ACTIONS: Partial<Record<StepName, string>> = {
  buy_numbers: batchAction(KIND.buy),
  route_numbers: batchAction(KIND.map),
  release_numbers: batchAction(KIND.release),
  create_agent: KIND.createAgent,
};

export function registerSteps(router: ListenerRouter): void {
  router.action<Body>(ACTION.createAgentForStep, async ({ ack, body, context }, deps) => {
    await ack();
    await answer(deps, body, requesterIn(context), 'create');
  });
  router.action<Body>(ACTION.cancelAgentForStep, async ({ ack, body, context }, deps) => {
    await ack();
    await answer(deps, body, requesterIn(context), 'cancel');
  });
  for (const name of Object.keys(STEP_INPUTS) as StepName[]) {
    router.function(name, async ({ ack, body, context }, deps) => {
      await ack();
      await runStep(deps, name, functionExecuted.parse(body).event, requesterIn(context));
    });
  }
}

async function runStep<N extends StepName>(
  deps: SlackDeps,
  name: N,
  event: FunctionExecuted,
  who: Requester,
): Promise<void> {
  const executionId = event.function_execution_id;
  const step = { workflowExecutionId: event.workflow_execution_id, executionId };
  // A retried delivery, here or on another replica, finds the execution claimed and leaves it to the first.
  if (!(await deps.ops.claimStep({ ...step, callbackId: name, userId: who.userId }))) {
    deps.logger.info({ executionId, step: name }, 'left alone a workflow step delivered again');
    return;
  }
  const actor: Actor = { ...who, source: 'workflow', step };
  const checked = checkInputs(name, event.inputs);
  if (!checked.ok) {
    const action = ACTIONS[name];
    if (action) await deps.ops.refuseInput(actor, action, checked.error);
    return deps.ops.endStep(executionId, { ok: false, error: checked.error });
  }
  const ranBy = checked.inputs.interactivity?.interactor.id;
  const namedChannelId = checked.inputs.channel_id;
  const running = {
    deps,
    // Slack does not say where a workflow runs: the channel named is where private answers go, never a change channel.
    actor: { ...actor, step: { ...step, ...(ranBy ? { ranBy } : {}), ...(namedChannelId ? { namedChannelId } : {}) } },
    person: { named: who.userId, ranBy },
    executionId,
    workflowToken: event.bot_access_token,
  };
  await RUNS[name](running, checked.inputs);
}

/** Whether Slack vouches that the person named is who ran the workflow: their own click started it. */
const vouched = ({ named, ranBy }: StepPerson): boolean => ranBy === named;

/** Sends the plan to the person the step names, saying who ran the workflow; one with nothing to change is applied. */
async function planAndAsk(
  { deps, actor, person, executionId, workflowToken }: Running,
  request: BulkRequest,
): Promise<void> {
  const planned = await deps.ops.planForStep(actor, executionId, request);
  if (!planned.ok) return deps.ops.endStep(executionId, { ok: false, error: planned.message });
  const { view } = planned;
  if (view.total === 0) {
    await deps.ops.applyBatch(actor, view.id, { onProgress: () => {} });
    return;
  }
  try {
    // Posted with the workflow's token, so that Slack ties its buttons to the step, as it does for any step's message.
    await deps.slack.ui.chat.postMessage({
      ...stepPlanMessage(view, deps.now(), person),
      channel: actor.userId,
      ...(workflowToken ? { token: workflowToken } : {}),
    });
  } catch (error) {
    const why = slackErrorCode(error);
    const sentence = `Voice Ops could not send the plan to ${actor.userId} to confirm (${why}): nothing was changed.`;
    await deps.ops.endStep(executionId, { ok: false, error: sentence });
    await deps.ops.cancelPlan(actor, view.id);
  }
}

/** A name for several agents or none ends the step, audited as refused, since nobody is there to choose. */
async function agentIdFor({ deps, actor, executionId }: Running, reference: string, action: string | undefined) {
  const found = oneAgentOnly(await deps.ops.findAgent(reference));
  if (found.ok) return found.agent.id;
  if (action) await deps.ops.refuseInput(actor, action, found);
  await deps.ops.endStep(executionId, { ok: false, error: found.message });
  return undefined;
}

/** Numbers as a step's input names them, a filter's agent given by id (undefined once the step has ended). */
async function numbersFor(
  step: Running,
  numbers: StepNumbers,
  action: string | undefined,
): Promise<StepNumbers | undefined> {
  const reference = 'filter' in numbers ? numbers.filter.agentId : undefined;
  if (reference === undefined || !('filter' in numbers)) return numbers;
  const agentId = await agentIdFor(step, reference, action);
  return agentId === undefined ? undefined : { filter: { ...numbers.filter, agentId } };
}

/**
 * Created at once when Slack vouches for the person, else asked of them first. Its token goes to its creator privately
 * or to no one (audited), never to an output, which anyone who can see the workflow reads.
 */
async function createAgent(step: Running, inputs: StepInputs<'create_agent'>): Promise<void> {
  const { deps, actor, executionId } = step;
  const input = { name: inputs.name, language: inputs.language };
  if (!vouched(step.person)) return askToCreate(step, input);
  const created = await deps.ops.createAgent(actor, input, executionId);
  // An answer the provider may still give is settled by the reconciler, which then ends the step.
  if (!created.ok && created.unsettled) return;
  if (!created.ok) return deps.ops.endStep(executionId, { ok: false, error: created.message });
  await deliverAgent(deps, privateTo(deps, actor), actor, created);
  await deps.ops.endStep(executionId, { ok: true, outputs: { agent_id: created.createdAgent?.id ?? '' } });
}

/** Privately to the person, in the channel the builder named if they can see it there, else directly. */
const privateTo = (deps: SlackDeps, actor: Actor) =>
  messageSurface(replyTo(deps, { userId: actor.userId, channelId: actor.step?.namedChannelId }), deps.now);

const deliverAgent = (deps: SlackDeps, surface: Surface, actor: Actor, done: Done) =>
  deliver(deps, surface, actor, { kind: 'done', done });

/** Asks the person named to create the agent with their own click; the step waits on their answer (answerAsk). */
async function askToCreate(
  { deps, actor, person, executionId, workflowToken }: Running,
  input: { name: string; language: string },
): Promise<void> {
  const asked = await deps.ops.askToCreateAgent(actor, executionId, input);
  if (!asked.ok) return deps.ops.endStep(executionId, { ok: false, error: asked.message });
  try {
    await deps.slack.ui.chat.postMessage({
      ...agentAskMessage(input, person, executionId),
      channel: actor.userId,
      ...(workflowToken ? { token: workflowToken } : {}),
    });
  } catch (error) {
    const why = slackErrorCode(error);
    const sentence = `Voice Ops could not ask ${actor.userId} to confirm (${why}): nothing was changed.`;
    await deps.ops.answerAsk(actor, executionId, 'cancel');
    await deps.ops.endStep(executionId, { ok: false, error: sentence });
  }
}

/** The person's Create or Cancel on an agent's creation a step asked of them. */
async function answer(deps: SlackDeps, body: Body, who: Requester, verdict: 'create' | 'cancel'): Promise<void> {
  const actor = actorOf(body, who);
  const executionId = chosenValue(body);
  const answered = await deps.ops.answerAsk(actor, executionId, verdict);
  // Someone else's click, or one too late, leaves the request as it is.
  const replacing = answered.ok || answered.reason === 'already_used' || answered.reason === 'expired';
  const surface = messageSurface(replyFor(deps, body), deps.now, { replace: replacing });
  if (!answered.ok) await surface.show({ kind: 'failure', failure: answered });
  else if (answered.done) await deliverAgent(deps, surface, actor, answered.done);
  else await surface.show({ kind: 'message', message: textMessage('Cancelled: no agent was created.') });
  await deps.ops.settleStep(executionId);
}

async function exportRouting({ deps, executionId }: Running): Promise<void> {
  const exported = await deps.ops.exportRouting();
  await deps.ops.endStep(
    executionId,
    exported.ok ? { ok: true, outputs: { routing: exported.text } } : { ok: false, error: exported.message },
  );
}
