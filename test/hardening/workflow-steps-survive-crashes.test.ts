// A Workflow Builder step whose app dies under it: a plan cut short by SIGKILL is reconciled as any batch is, and the
// step then fails once, saying what was done; a step whose end the app sent as it died is ended once in Slack, however
// often the restarted app ends it again.
import { expect, it } from 'vitest';
import type { StepExecution } from '../../src/playground/functions.js';
import { ACTION } from '../../src/slack/ids.js';
import { stepPlan } from '../e2e/support.js';
import { ADMIN, BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { type AppProcess, appEnvironment, spawnApp } from '../harness/app-process.js';
import { blockAction, functionExecuted } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE, postToSlackApp } from '../harness/signing.js';
import { numbersAndAgent, useProcessBed } from './process-support.js';
import { until } from './support.js';

const NUMBERS = 10;

const bed = useProcessBed('voice-ops-step-crash-', [BOT_TOKEN, SIGNING_SECRET]);

async function startApp(): Promise<{ process: AppProcess; eventsUrl: string }> {
  const process = spawnApp({
    via: 'node',
    env: {
      ...appEnvironment(bed.slack, bed.sandbox, bed.database.env),
      VOICE_API_TIMEOUT_MS: '1500',
      VOICE_ADMINS: ADMIN,
      RECONCILE_INTERVAL_S: '0',
    },
  });
  bed.started.push(process);
  return { process, eventsUrl: (await process.ready).eventsUrl };
}

/** A step run by the person it names: Slack vouches for them in its interactivity input. */
async function runStep(eventsUrl: string, callbackId: string, inputs: Record<string, unknown>) {
  const execution = bed.slack.functions.start(callbackId, inputs, String(inputs.user_id));
  const body = functionExecuted(execution);
  expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, body, { contentType: JSON_CONTENT_TYPE })).status).toBe(200);
  return execution;
}

/** Confirm, pressed in the plan the step sent: the click carries the step's function_data, as Slack sends it. */
async function confirm(eventsUrl: string, execution: StepExecution): Promise<void> {
  const plan = await stepPlan({ slack: bed.slack }, execution, OPERATOR);
  const { channelId, messageTs } = plan.container;
  const body = blockAction({
    userId: OPERATOR,
    actionId: ACTION.confirmBatch,
    value: plan.batchId,
    container: plan.container,
    responseUrl: bed.slack.respondUrl(),
    functionInteraction: bed.slack.functions.interactionWith(channelId, messageTs),
  });
  expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, body)).status).toBe(200);
}

const ends = (execution: StepExecution) =>
  bed.slack
    .calls()
    .filter(
      (call) =>
        call.method.startsWith('functions.complete') && call.body.function_execution_id === execution.executionId,
    );

it('fails a step once its plan, cut short by a crash, is reconciled, naming what was done', async () => {
  const agentId = await numbersAndAgent(bed.sandbox, 'BR', NUMBERS, { name: 'Rio desk', language: 'pt-BR' });
  const first = await startApp();
  const execution = await runStep(first.eventsUrl, 'route_numbers', {
    user_id: OPERATOR,
    numbers: 'BR',
    agent_id: agentId,
  });
  bed.sandbox.faults.inject('mapNumber', { type: 'hold' });
  await confirm(first.eventsUrl, execution);
  await until(
    () => Promise.resolve(bed.sandbox.requestCount('mapNumber')),
    (count) => count >= 4,
    'four maps to reach the provider',
  );
  first.process.child.kill('SIGKILL');
  await first.process.exited;
  bed.sandbox.faults.clear();
  expect(execution.end).toBeUndefined();

  const second = await startApp();
  await until(
    () => execution.end,
    (end) => end !== undefined,
    'the step to end',
    20_000,
  );
  expect(execution.end?.outcome).toBe('failed');
  const error = execution.end?.outcome === 'failed' ? execution.end.error : '';
  expect(error).toMatch(/^Done: (\+55\d+, ){3}\+55\d+\. Then Voice Ops stopped/);
  expect(error).toContain('Resume');
  expect(ends(execution)).toHaveLength(1);
  second.process.child.kill('SIGTERM');
  expect(await second.process.exited).toEqual({ code: 0, signal: null });
});

it('ends a step once in Slack when the app died as it sent the end', async () => {
  const first = await startApp();
  // Slack takes the end when it arrives; the app dies before it hears back.
  const release = bed.slack.hold('functions.completeSuccess');
  const execution = await runStep(first.eventsUrl, 'create_agent', {
    user_id: OPERATOR,
    name: 'Night desk',
    language: 'en-GB',
  });
  await until(
    () => execution.end,
    (end) => end !== undefined,
    'Slack to take the end',
  );
  first.process.child.kill('SIGKILL');
  await first.process.exited;
  release();

  const second = await startApp();
  await until(
    () => ends(execution).length,
    (count) => count >= 2,
    'the restarted app to end the step again',
    20_000,
  );
  // Once the restarted app hears that the step has ended, it stops ending it.
  await until(
    async () =>
      (
        await (
          await bed.database.sql()
        ).all<{ ended_at: string | null }>('SELECT ended_at FROM workflow_steps WHERE execution_id = ?', [
          execution.executionId,
        ])
      )[0]?.ended_at,
    (ended) => typeof ended === 'string',
    'the step to be recorded ended',
  );
  const listed = await fetch(`${bed.sandbox.url}/ai-agents`, {
    headers: { authorization: `Bearer ${bed.sandbox.apiKey}` },
  });
  const agents = ((await listed.json()) as { data: { id: string }[] }).data.map((agent) => agent.id);
  expect(execution.end).toEqual({ outcome: 'completed', outputs: { agent_id: expect.any(String) } });
  expect(agents).toContain(execution.end?.outcome === 'completed' ? execution.end.outputs.agent_id : '');
  expect(ends(execution)).toHaveLength(2);
  second.process.child.kill('SIGTERM');
  expect(await second.process.exited).toEqual({ code: 0, signal: null });
});
