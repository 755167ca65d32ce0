// Undo across replicas: a change made through one replica is undone through another, and an Undo, then its Apply,
// each pressed on two replicas at once (a double click landing on both), plan one Undo and walk the change back once.
// Real processes, one fake Slack, one sandbox, and this run's engine (a SQLite file or a Postgres database).
import { expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { type Block, buttonValues, EPHEMERAL, onlyButton, shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { blockAction, slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  inspectDatabase,
  numbersAndAgent,
  outcome,
  providerCall,
  type Replica,
  startReplicas,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-undo-replicas-', [BOT_TOKEN, SIGNING_SECRET]);

let replies = 0;
const blocksOf = (call: SlackCall) => (call.body.blocks ?? []) as Block[];

/** `/voice TEXT` by the operator through `replica`: the first answer that `done` accepts. */
async function command(replica: Replica, text: string, done: (call: SlackCall) => boolean): Promise<SlackCall> {
  const id = `undo-command-${++replies}`;
  const body = slashCommand({ text, userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) });
  expect((await postToSlackApp(replica.eventsUrl, SIGNING_SECRET, body)).status).toBe(200);
  return bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id && done(call), { timeoutMs: 10_000 });
}

/** The operator presses a button through `replica`; returns the response_url id its answers go to. */
async function press(replica: Replica, actionId: string, value: string): Promise<string> {
  const id = `undo-press-${++replies}`;
  const body = blockAction({
    userId: OPERATOR,
    actionId,
    value,
    container: EPHEMERAL,
    responseUrl: bed.slack.respondUrl(id),
  });
  expect((await postToSlackApp(replica.eventsUrl, SIGNING_SECRET, body)).status).toBe(200);
  return id;
}

/** The agent a number routes to by the app's records. */
async function routeOf(number: string): Promise<string | undefined> {
  const sql = await bed.database.sql();
  return (await sql.get<{ agent_id: string }>('SELECT agent_id FROM routes WHERE phone_number = ?', [number]))
    ?.agent_id;
}

it('a change made on one replica is undone once, its Undo and Apply each pressed on two replicas at once', async () => {
  const [a, b] = await startReplicas(bed, 2);
  if (!a || !b) throw new Error('two replicas');
  const first = await numbersAndAgent(bed.sandbox, 'NL', 1, { name: 'Amsterdam desk', language: 'nl-NL' });
  const second = String(
    (await providerCall(bed.sandbox, 'POST', '/ai-agents', { name: 'Rotterdam desk', language: 'nl-NL' })).id,
  );
  const { data } = await providerCall(bed.sandbox, 'GET', '/purchased-phone-numbers');
  const number = (data as { number: string }[]).find((entry) => entry.number.startsWith('+31'))?.number ?? '';

  // Routed, then re-routed, through replica A.
  await command(a, `map ${number} ${first}`, (call) => shownText(call).includes('Routed'));
  const prompt = await command(
    a,
    `map ${number} ${second}`,
    (call) => buttonValues(blocksOf(call), ACTION.confirmChange).length > 0,
  );
  const rerouted = await outcome(
    bed.slack,
    await press(a, ACTION.confirmChange, onlyButton(blocksOf(prompt), ACTION.confirmChange)),
  );
  expect(shownText(rerouted)).toContain('Re-routed');
  const change = onlyButton(blocksOf(rerouted), ACTION.undoChange);

  // Undo, double-clicked: one click reaches each replica.
  const undos = await Promise.all([b, a].map((replica) => press(replica, ACTION.undoChange, change)));
  const answers = await Promise.all(undos.map((id) => outcome(bed.slack, id)));
  // One Undo is planned: the click that came second waited for the first one's plan, and shows it too.
  const batches = answers.map((answer) => onlyButton(blocksOf(answer), ACTION.confirmBatch));
  expect(new Set(batches).size).toBe(1);

  // Apply, double-clicked too: the number is routed back once.
  const maps = bed.sandbox.requestCount('mapNumber');
  const [batch = ''] = batches;
  const applies = await Promise.all([b, a].map((replica) => press(replica, ACTION.confirmBatch, batch)));
  await until(
    () => applies.flatMap((id) => bed.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId === id)),
    (calls) => calls.some((call) => shownText(call).includes('Routed 1 of 1 number')),
    'the Undo to be applied',
  );
  expect(bed.sandbox.requestCount('mapNumber') - maps).toBe(1);
  expect(await routeOf(number)).toBe(first);

  // The log has one Undo, requested and succeeded, naming the change; a further Undo of it, on either replica, says
  // it was undone already.
  const { events } = await inspectDatabase(bed.database);
  const undone = events.filter((event) => event.action === 'change.undo' && event.outcome !== 'rejected');
  expect(undone.map((event) => [event.outcome, event.params?.undoes])).toEqual([
    ['requested', change],
    ['succeeded', change],
  ]);
  expect(new Set(undone.map((event) => event.correlationId)).size).toBe(1);
  for (const replica of [a, b])
    expect(shownText(await outcome(bed.slack, await press(replica, ACTION.undoChange, change)))).toContain(
      'That change was undone already',
    );
});
