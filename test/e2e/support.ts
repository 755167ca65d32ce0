// Helpers shared by the end-to-end tests: reading what Slack was sent (blocks, views), reading the sandbox through
// its own HTTP API, reading the app's SQLite file read-only, and driving the app's own flows to set a scene.
// Append new helpers at the end: several test files (and authors) share this module.

import { execFileSync } from 'node:child_process';
import { request } from 'undici';
import { expect } from 'vitest';
import { CONFIGURATION } from '../../src/ops/api.js';
import type { StepEnd, StepExecution } from '../../src/playground/functions.js';
import { ROUTE_NAMES, type RouteName } from '../../src/sandbox/faults.js';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { RoutingRecords } from '../../src/store/routes.js';
import type { SqlParam } from '../../src/store/sql.js';
import {
  NOTIFY_CHANNEL,
  OPERATOR,
  OPS_CHANNEL,
  type SentRequest,
  startTestApp,
  type TestApp,
  type TestAppOptions,
} from '../harness/app.js';
import { RESPONSE_URL, type SlackCall } from '../harness/fake-slack.js';
import { textInput } from '../harness/payloads.js';
import { adminUrlOf, asAdmin } from '../harness/postgres.js';
import { limitViolations } from '../views/support.js';

// ---------------------------------------------------------------------------------------------------------------
// Block Kit as Slack received it

export interface BlockElement {
  type?: string;
  action_id?: string;
  value?: string;
  text?: { type?: string; text?: string };
  options?: { text: { text: string }; value: string }[];
  initial_option?: { value: string };
  style?: string;
}

export interface Block {
  type: string;
  block_id?: string;
  text?: { type?: string; text?: string };
  elements?: (BlockElement & { text?: unknown })[];
  accessory?: BlockElement;
  element?: BlockElement;
}

export interface SentView {
  type?: string;
  callback_id?: string;
  private_metadata?: string;
  title?: { text?: string };
  submit?: { text?: string };
  notify_on_close?: boolean;
  blocks: Block[];
}

/** The view a views.open / views.update / views.push / views.publish call carried. */
export function viewOf(call: SlackCall): SentView {
  const view = call.body.view as Partial<SentView> | undefined;
  if (!view || typeof view !== 'object') throw new Error(`${call.method} carried no view`);
  return { ...view, blocks: view.blocks ?? [] };
}

/** The blocks of a message (response_url, chat.postMessage) or of the view a views.* call carried. */
export function blocksOf(call: SlackCall): Block[] {
  if (call.body.view !== undefined) return viewOf(call).blocks;
  return (call.body.blocks as Block[] | undefined) ?? [];
}

/** Every interactive element: section accessories, actions elements, input elements. */
export function elementsOf(blocks: Block[]): BlockElement[] {
  return blocks.flatMap((block) => [
    ...(block.type === 'actions' ? (block.elements ?? []) : []),
    ...(block.accessory ? [block.accessory] : []),
    ...(block.element ? [block.element] : []),
  ]);
}

/** The values of the buttons (or selects) with this action_id, in order. */
export function buttonValues(blocks: Block[], actionId: string): string[] {
  return elementsOf(blocks)
    .filter((element) => element.action_id === actionId)
    .map((element) => element.value ?? '');
}

export function hasElement(blocks: Block[], actionId: string): boolean {
  return elementsOf(blocks).some((element) => element.action_id === actionId);
}

/** The only button with this action_id; fails the test when there is none or more than one. */
export function onlyButton(blocks: Block[], actionId: string): string {
  const values = buttonValues(blocks, actionId);
  expect(values, `exactly one ${actionId} button`).toHaveLength(1);
  return values[0] ?? '';
}

/** The text of sections, headers and context elements, one block a line: what a person reads. */
export function readable(blocks: Block[]): string {
  return blocks
    .flatMap((block) => {
      if (block.type === 'section' || block.type === 'header') return [block.text?.text ?? ''];
      if (block.type === 'context') {
        return (block.elements ?? []).map((element) =>
          typeof element.text === 'string' ? element.text : (element.text?.text ?? ''),
        );
      }
      return [];
    })
    .join('\n');
}

/** What a call shows to a person: the fallback text (messages) and the readable blocks. */
export function shownText(call: SlackCall): string {
  const text = typeof call.body.text === 'string' ? call.body.text : '';
  return `${text}\n${readable(blocksOf(call))}`;
}

/** The options of the static select with this action_id (e.g. an input's `value`). */
export function selectOptions(blocks: Block[], blockId: string): { text: string; value: string }[] {
  const block = blocks.find((candidate) => candidate.block_id === blockId);
  return (block?.element?.options ?? []).map((entry) => ({ text: entry.text.text, value: entry.value }));
}

/** A message container for buttons pressed in the app's ephemeral replies. */
export const EPHEMERAL = { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true } as const;

/** Waits for a post to this response_url whose shown text matches. */
export function respondedWith(t: TestApp, responseUrlId: string | undefined, match: string | RegExp) {
  return t.slack.waitFor(
    RESPONSE_URL,
    (call) =>
      call.responseUrlId === responseUrlId &&
      (typeof match === 'string' ? shownText(call).includes(match) : match.test(shownText(call))),
    { description: `to response_url ${responseUrlId} showing ${String(match)}` },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The sandbox, through its HTTP API (these calls count in `t.sandbox.requestCount`)

export interface SandboxAgent {
  id: string;
  name: string;
  status: string;
}

export interface SandboxNumber {
  id: string;
  number: string;
  status: string;
}

export interface SandboxAvailable {
  id: string;
  number: string;
  region: string;
  capabilities: string[];
}

/** Whatever runs a sandbox: a test app, or the playground's app. */
type WithSandbox = { sandbox: { url: string; apiKey: string } };

/** One request to the sandbox's API; `body` is sent as JSON. */
export async function sandboxRequest(
  t: WithSandbox,
  method: string,
  path: string,
  body?: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${t.sandbox.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${t.sandbox.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function sandboxList<T>(t: WithSandbox, path: string): Promise<T[]> {
  const { status, body } = await sandboxRequest(t, 'GET', path);
  expect(status, `GET ${path}`).toBe(200);
  return body.data as T[];
}

export const sandboxAgents = (t: WithSandbox) => sandboxList<SandboxAgent>(t, '/ai-agents');
export const sandboxNumbers = (t: WithSandbox) => sandboxList<SandboxNumber>(t, '/purchased-phone-numbers');
export const sandboxAvailable = (t: TestApp, region: string) =>
  sandboxList<SandboxAvailable>(t, `/list-available-numbers?region=${region}`);

// ---------------------------------------------------------------------------------------------------------------
// The app's SQLite file, opened read-only beside the running app

export interface AuditRow {
  id: number;
  at: string;
  actor_id: string;
  actor_name: string | null;
  team_id: string | null;
  channel_id: string | null;
  source: string;
  action: string;
  target: string | null;
  params: string | null;
  outcome: string;
  error_code: string | null;
  error_message: string | null;
  correlation_id: string;
  hash: string;
}

/** Rows a query reads from the app's database, on this run's engine. */
export async function rowsOf<T>(t: TestApp, text: string, params: SqlParam[] = []): Promise<T[]> {
  return (await t.database.sql()).all<T>(text, params);
}

/** Every audit row, oldest first. */
export function auditRows(t: TestApp): Promise<AuditRow[]> {
  return rowsOf<AuditRow>(t, 'SELECT * FROM audit_events ORDER BY id');
}

/** Every row of every table, as JSON: for proving that something (a secret) was never stored. */
export async function everyRowAsJson(t: TestApp): Promise<string> {
  const text = await t.database.text();
  expect(text).toContain('audit_events');
  return text;
}

// ---------------------------------------------------------------------------------------------------------------
// Setting a scene through the app's own flows

/** `/voice numbers buy NUMBER`, then Confirm; resolves once the requester is told and the app is done with it. */
export async function buyThroughApp(t: TestApp, user: string, number: string): Promise<void> {
  const asked = await t.command(`numbers buy ${number}`, user);
  const prompt = await t.respondedTo(asked.responseUrlId);
  const confirmationId = onlyButton(blocksOf(prompt), ACTION.confirmChange);
  const confirmed = await t.action({
    userId: user,
    actionId: ACTION.confirmChange,
    value: confirmationId,
    container: EPHEMERAL,
  });
  await respondedWith(t, confirmed.responseUrlId, 'Bought');
  await t.settled();
}

/** `/voice agents create "NAME" LANGUAGE`; resolves with the agent as the sandbox lists it, and the shown token. */
export async function createAgentThroughApp(
  t: TestApp,
  user: string,
  name: string,
  language = 'en-US',
): Promise<{ agent: SandboxAgent; token: string; reply: SlackCall }> {
  const sent = await t.command(`agents create "${name}" ${language}`, user);
  const reply = await t.respondedTo(sent.responseUrlId);
  // The token is shown in a code block, the one code block of the reply.
  const token = /```([^`]+)```/.exec(readable(blocksOf(reply)))?.[1];
  expect(token, `an agent token in ${JSON.stringify(reply.body)}`).toBeDefined();
  const agent = (await sandboxAgents(t)).find((candidate) => candidate.name === name);
  expect(agent, `agent ${name} at the sandbox`).toBeDefined();
  await t.settled();
  return { agent: agent as SandboxAgent, token: token ?? '', reply };
}

// ---------------------------------------------------------------------------------------------------------------
// Confirmations, the audit trail of one request, and what reached the provider

/** Presses a button in one of the app's ephemeral replies (Confirm, Cancel, Buy…). */
export function press(t: TestApp, user: string, actionId: string, value: string): Promise<SentRequest> {
  return t.action({ userId: user, actionId, value, container: EPHEMERAL });
}

/** How a batch's last word reads once it has ended: its result, a stop, or a plan that changed before it ran. */
const BATCH_ENDED = /(Routed|Released|Bought|Labelled) [\d,]+ of|Stopped|changed since/;

/** Presses Apply on a plan as `user`, and resolves with what the click was last answered once the batch ended. */
export async function applyPlan(t: TestApp, plan: SlackCall, user = OPERATOR, timeoutMs?: number): Promise<SlackCall> {
  const pressed = await press(t, user, ACTION.confirmBatch, onlyButton(blocksOf(plan), ACTION.confirmBatch));
  let ended: SlackCall | undefined;
  await waitUntil(
    () => {
      ended = t.slack
        .calls(RESPONSE_URL)
        .filter((call) => call.responseUrlId === pressed.responseUrlId)
        .findLast((call) => BATCH_ENDED.test(shownText(call)));
      return ended !== undefined;
    },
    'the batch to end',
    timeoutMs,
  );
  await t.settled();
  return ended as SlackCall;
}

/** Sends `/voice TEXT` and waits for the confirmation it answers with; fails the test when there is none. */
export async function askForConfirmation(
  t: TestApp,
  user: string,
  text: string,
): Promise<{ prompt: SlackCall; confirmationId: string }> {
  const asked = await t.command(text, user);
  const prompt = await t.respondedTo(asked.responseUrlId);
  return { prompt, confirmationId: onlyButton(blocksOf(prompt), ACTION.confirmChange) };
}

/** The placeholder a Confirm click shows while the change runs. */
export const WORKING = 'Working on it';

/** What a click finally answered on its response_url: the first post after any "Working on it…" placeholder. */
export function outcomeOf(t: TestApp, responseUrlId: string | undefined): Promise<SlackCall> {
  return t.slack.waitFor(
    RESPONSE_URL,
    (call) => call.responseUrlId === responseUrlId && !shownText(call).includes(WORKING),
    { description: `to response_url ${responseUrlId} other than "${WORKING}…"` },
  );
}

/**
 * Presses Confirm as `user` and waits for the outcome shown to them and for the app to finish with it (the
 * announcement follows the answer): then whatever was not posted never will be.
 */
export async function confirmAs(t: TestApp, user: string, confirmationId: string): Promise<SlackCall> {
  const pressed = await press(t, user, ACTION.confirmChange, confirmationId);
  const outcome = await outcomeOf(t, pressed.responseUrlId);
  await t.settled();
  return outcome;
}

/** The audit rows of one request (request, confirmation, outcome), oldest first. */
export async function auditTrail(t: TestApp, correlationId: string): Promise<AuditRow[]> {
  return (await auditRows(t)).filter((row) => row.correlation_id === correlationId);
}

/** The newest audit row with these column values, or undefined. */
export async function lastAuditRow(t: TestApp, match: Partial<AuditRow>): Promise<AuditRow | undefined> {
  return (await auditRows(t))
    .reverse()
    .find((row) => Object.entries(match).every(([column, value]) => row[column as keyof AuditRow] === value));
}

/**
 * Waits until an audit row with these column values exists: for steps that no Slack call follows (closing a
 * modal), where there is nothing else to wait for.
 */
export async function waitForAuditRow(t: TestApp, match: Partial<AuditRow>, timeoutMs = 15_000): Promise<AuditRow> {
  await waitUntil(
    async () => (await lastAuditRow(t, match)) !== undefined,
    `an audit row matching ${JSON.stringify(match)}`,
    timeoutMs,
  );
  return (await lastAuditRow(t, match)) as AuditRow;
}

/** Polls `condition` until it holds; fails after the timeout, naming what it waited for. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  description: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits until every successful change has refreshed its actor's Home tab (views.publish, after the answer), so that
 * no provider read of such a refresh is still under way: then request counts stand still.
 */
export async function homeRefreshesDone(t: TestApp): Promise<void> {
  // The settings the configuration wrote at start are nobody's change made in Slack: no Home tab follows them.
  const changes = (await auditRows(t)).filter(
    (row) => row.outcome === 'succeeded' && row.actor_id !== CONFIGURATION.userId,
  ).length;
  return waitUntil(
    () => t.slack.calls('views.publish').length >= changes,
    `${changes} Home tab refreshes, one per successful change`,
  );
}

/** Requests the sandbox received so far, per route: compare two of these to prove nothing reached the provider. */
export function providerRequests(t: TestApp): Record<RouteName, number> {
  return Object.fromEntries(ROUTE_NAMES.map((route) => [route, t.sandbox.requestCount(route)])) as Record<
    RouteName,
    number
  >;
}

/** `/voice map NUMBER AGENT_ID` for a number that routes nowhere yet; resolves once the app is done with it. */
export async function mapThroughApp(t: TestApp, user: string, number: string, agentId: string): Promise<void> {
  const sent = await t.command(`map ${number} ${agentId}`, user);
  await respondedWith(t, sent.responseUrlId, 'Routed');
  await t.settled();
}

/** The first number for sale in `region` that takes voice calls (after `skip` others), from the whole region. */
export async function voiceNumber(t: TestApp, region = 'US', skip = 0): Promise<string> {
  const { status, body } = await sandboxRequest(t, 'GET', `/list-available-numbers?region=${region}&limit=100`);
  expect(status, `GET /list-available-numbers?region=${region}`).toBe(200);
  const available = body.data as SandboxAvailable[];
  const voice = available.filter((entry) => entry.capabilities.includes('voice'));
  const chosen = voice[skip]?.number;
  if (!chosen) throw new Error(`the sandbox offers no voice number ${skip} in ${region}`);
  return chosen;
}

// ---------------------------------------------------------------------------------------------------------------
// Accounts at scale, and Slack's Block Kit limits on everything the app sent

/** Routing records written into the app's own store, as the app would after these maps (seeded sandbox routes). */
export async function seedRoutes(t: TestApp, routes: { phoneNumber: string; agentId: string }[]): Promise<void> {
  await (await t.database.sql()).transaction(async (tx) => {
    const records = new RoutingRecords(tx);
    for (const route of routes) await records.set({ ...route, updatedBy: 'USEED' });
  });
}

/** The routes a sandbox seed of `routed` numbers made: the first numbers, to the agents in turn. */
export function seededRoutes(numbers: SandboxNumber[], agents: SandboxAgent[], routed: number) {
  return numbers.slice(0, routed).map((entry, index) => ({
    phoneNumber: entry.number,
    agentId: agents[index % agents.length]?.id ?? '',
  }));
}

/** Where a call breaks Slack's limits: 50 blocks in a message, 100 in a view, and every text, option and value. */
export function blockKitProblems(call: SlackCall): string[] {
  const isView = call.body.view !== undefined;
  const blocks = blocksOf(call);
  const max = isView ? 100 : 50;
  return [
    ...(blocks.length > max ? [`${call.method}: ${blocks.length} blocks`] : []),
    ...limitViolations(isView ? call.body.view : call.body).map((problem) => `${call.method}: ${problem}`),
  ];
}

/** The purchased numbers a listing shows, one per row (`*+1…*` first), in order. */
export function listedNumbers(blocks: Block[]): string[] {
  return blocks.flatMap((block) => {
    const number = block.type === 'section' ? /^\*(\+\d+)\*/.exec(block.text?.text ?? '')?.[1] : undefined;
    return number ? [number] : [];
  });
}

/** The agent ids a listing shows, one per row (`*Name*  `id`` then its status), in order. */
export function listedAgents(blocks: Block[]): string[] {
  return blocks.flatMap((block) => {
    const text = block.type === 'section' ? (block.text?.text ?? '') : '';
    const id = /^\*[^\n]*\* {2}`([^`]+)`\nStatus: /.exec(text)?.[1];
    return id ? [id] : [];
  });
}

/** What a type-ahead picker offers for `typed`: the options the app acknowledged, groups flattened, in order. */
export async function suggested(
  t: TestApp,
  input: { block: string; action: string },
  typed: string,
  user = OPERATOR,
): Promise<{ options: { text: string; value: string }[]; groups: string[]; answer: unknown }> {
  const answer = await t.suggest({ userId: user, actionId: input.action, blockId: input.block, value: typed });
  expect(answer.status).toBe(200);
  type Option = { text: { text: string }; value: string };
  const json = answer.json as { options?: Option[]; option_groups?: { label: { text: string }; options: Option[] }[] };
  const options = [...(json.options ?? []), ...(json.option_groups ?? []).flatMap((group) => group.options)];
  return {
    options: options.map((option) => ({ text: option.text.text, value: option.value })),
    groups: (json.option_groups ?? []).map((group) => group.label.text),
    answer: json,
  };
}

/** The app's writes to the notify channel since `since` (a `slack.mark()`): posts and rewrites of announcements. */
export function announcementCalls(t: TestApp, since = 0): SlackCall[] {
  return t.slack
    .calls()
    .slice(since)
    .filter(
      (call) => ['chat.postMessage', 'chat.update'].includes(call.method) && call.body.channel === NOTIFY_CHANNEL,
    );
}

/** An announcement as the channel shows it now: posted once, then rewritten as its author's changes came. */
export interface Announced {
  ts: string;
  /** What a person reads in it now: the fallback text and the readable blocks. */
  text: string;
  /** The message as Slack keeps it, for checks of its markup. */
  blocks: Block[];
  /** chat.update calls that rewrote it. */
  edits: number;
}

/** Every message in the notify channel, oldest first, as each reads now. */
export function announced(t: TestApp, channel = NOTIFY_CHANNEL): Announced[] {
  return t.slack.messages(channel).map((message) => {
    const blocks = message.blocks as Block[];
    return { ts: message.ts, text: `${message.text}\n${readable(blocks)}`, blocks, edits: message.edits };
  });
}

/** Waits until a message in the notify channel reads `match`; resolves with it as it reads then. */
export async function announcedWith(t: TestApp, match: string | RegExp, timeoutMs = 15_000): Promise<Announced> {
  const reads = (message: Announced) =>
    typeof match === 'string' ? message.text.includes(match) : match.test(message.text);
  await waitUntil(() => announced(t).some(reads), `an announcement reading ${String(match)}`, timeoutMs);
  return announced(t).find(reads) as Announced;
}

/** An app whose sandbox was seeded with agents and numbers, the first `routed` of them routed, and the app knowing it. */
export interface SeededApp {
  t: TestApp;
  numbers: SandboxNumber[];
  agents: SandboxAgent[];
  /** The app's routing records as seeded (number → agent id), for a test to keep up to date as it changes them. */
  routes: Map<string, string>;
  agent(index: number): SandboxAgent;
}

export async function startSeededApp(
  seed: { agents: number; numbers: number; routed: number },
  options: TestAppOptions = {},
): Promise<SeededApp> {
  const t = await startTestApp({ ...options, sandboxSeed: seed });
  const [numbers, agents] = await Promise.all([sandboxNumbers(t), sandboxAgents(t)]);
  const seeded = seededRoutes(numbers, agents, seed.routed);
  await seedRoutes(t, seeded);
  const agent = (index: number): SandboxAgent => {
    const found = agents[index];
    if (!found) throw new Error(`no seeded agent ${index}`);
    return found;
  };
  return { t, numbers, agents, routes: new Map(seeded.map((route) => [route.phoneNumber, route.agentId])), agent };
}

/**
 * Makes the app's database refuse writes; resolves with what undoes it. A SQLite file takes the immutable attribute,
 * which stops even root (the test runs as root), on the WAL too, which takes the app's writes. A Postgres database
 * turns read-only for new sessions, and the app's sessions are ended so that its pool opens new ones.
 */
export async function stopWrites(t: TestApp): Promise<() => Promise<void>> {
  if (t.database.target.kind === 'sqlite') {
    const files = [t.dbPath, `${t.dbPath}-wal`];
    execFileSync('chattr', ['+i', ...files]);
    return async () => execFileSync('chattr', ['-i', ...files]) && undefined;
  }
  // Only the database's owner may change its defaults: the admin, not the role the app runs as.
  const owner = adminUrlOf(t.database.target.url);
  const readOnly = (on: boolean) =>
    asAdmin(owner, async (admin) => {
      // A new session on a read-only database starts read-only itself, this one too.
      await admin.query('SET default_transaction_read_only = off');
      await admin.query(
        `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_read_only = ${on}', current_database()); END $$`,
      );
      // The app's pool sessions, so that new ones start read-only; not its liveness session, whose loss is a fault of
      // its own (test/hardening/a-replica-cut-off-sends-nothing.test.ts).
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() ' +
          "AND pid <> pg_backend_pid() AND application_name NOT LIKE 'voice-ops liveness %'",
      );
    });
  await readOnly(true);
  return () => readOnly(false);
}

/** The text of a command's acknowledgement: where a refusal before any listener answers, at once. */
export function acknowledged(sent: { body: string }): string {
  return String((JSON.parse(sent.body) as { text?: string }).text);
}

/** What a person copies out of a message's code block (an export): its lines, Slack's entities read as characters. */
export function copiedCodeBlock(call: SlackCall): string {
  const shown = blocksOf(call)
    .map((block) => block.text?.text ?? '')
    .join('\n');
  return (/```([\s\S]*)```/.exec(shown)?.[1] ?? '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** `/voice plan`, its form submitted with `text` pasted: the form's answer (closed for a plan, or its errors shown). */
export async function submitPlanForm(t: TestApp, user: string, text: string): Promise<SentRequest> {
  const opened = await t.command('plan', user);
  const form = viewOf(await t.slack.waitFor('views.open', (call) => call.body.trigger_id === opened.triggerId));
  return t.submit({
    userId: user,
    callbackId: CALLBACK.routingPlan,
    privateMetadata: form.private_metadata,
    stateValues: {
      [INPUT.routingText.block]: { [INPUT.routingText.action]: textInput(text) },
      [INPUT.routingFile.block]: { [INPUT.routingFile.action]: { type: 'file_input', files: [] } },
    },
  });
}

/** `/voice plan`, its form submitted with `text` pasted; resolves with the plan posted once the form closed. */
export async function planThroughForm(t: TestApp, user: string, text: string): Promise<SlackCall> {
  const since = t.slack.mark();
  const answer = await submitPlanForm(t, user, text);
  expect(answer.json, 'the form closes for the plan').toMatchObject({ response_action: 'clear' });
  return t.slack.waitFor(
    'chat.postEphemeral',
    (call) => call.body.user === user && /nothing to change|Plan|plan has/.test(shownText(call)),
    { since },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Workflow Builder steps

/** Waits until Slack has the step's end (functions.completeSuccess or .completeError) and the app is done with it. */
export async function stepEnd(t: TestApp, execution: StepExecution): Promise<StepEnd> {
  await waitUntil(() => execution.end !== undefined, `step ${execution.callbackId} (${execution.executionId}) to end`);
  await t.settled();
  return execution.end as StepEnd;
}

/** Confirms a step's release plan as its person does: Confirm, then the count typed in the form that opens. */
export async function confirmByTypedCount(
  t: TestApp,
  userId: string,
  plan: Awaited<ReturnType<typeof stepPlan>>,
  count: number,
): Promise<void> {
  const pressed = await t.action({
    userId,
    actionId: ACTION.confirmBatchTyped,
    value: plan.batchId,
    container: plan.container,
  });
  const opened = viewOf(await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId));
  await t.submit({
    userId,
    callbackId: CALLBACK.confirmBatch,
    privateMetadata: opened.private_metadata,
    stateValues: {
      [INPUT.typedConfirmation.block]: { [INPUT.typedConfirmation.action]: textInput(String(count)) },
    },
  });
}

/** The numbers a completed step output, as a list; none for a failed step. */
export const outputNumbers = (end: StepEnd): string[] =>
  end.outcome === 'completed' ? String(end.outputs.numbers).split(', ').filter(Boolean) : [];

/** The calls that ended this step in Slack, successful or refused. */
export const stepEndCalls = (t: TestApp, execution: StepExecution): SlackCall[] =>
  t.slack
    .calls()
    .filter((call) => call.method.startsWith('functions.complete'))
    .filter((call) => call.body.function_execution_id === execution.executionId);

/** The plan a step sent privately to the person who ran the workflow: its batch id and the message's ts. */
export async function stepPlan(t: Pick<TestApp, 'slack'>, execution: StepExecution, user: string) {
  const sent = await t.slack.waitFor(
    'chat.postMessage',
    (call) => call.token === execution.botAccessToken && call.body.channel === user,
    { description: `with the plan of step ${execution.callbackId}` },
  );
  const message = t.slack.messages(`D${user}`).find((posted) => posted.text === sent.body.text);
  const blocks = blocksOf(sent);
  const batchId = [ACTION.confirmBatch, ACTION.confirmBatchTyped].flatMap((id) => buttonValues(blocks, id))[0] ?? '';
  return {
    call: sent,
    blocks,
    batchId,
    container: { type: 'message', channelId: `D${user}`, messageTs: message?.ts } as const,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Settings from either source: the same rules, held the same way, only named differently

/** Where a test's roles, guardrails and channels come from (`startTestApp`'s `settingsFrom`). */
export type SettingsSource = NonNullable<TestAppOptions['settingsFrom']>;

/** Both sources, for `describe.each`: each guardrail test runs once with each. */
export const SETTINGS_SOURCES: readonly SettingsSource[] = ['environment', 'slack'];

/**
 * The words that tell a rule's source apart, and only those: a rule the environment locks is named by its variable,
 * and whoever runs Voice Ops changes it; a rule set in Slack is named by nothing, and an admin changes it there.
 */
export function ruleWords(source: SettingsSource) {
  const locked = source === 'environment';
  return {
    /** After a refusal's rule: ` (VOICE_CHANGE_CHANNELS)`, or nothing. */
    tag: (variable: string): string => (locked ? ` (${variable})` : ''),
    /** A buy limit as a refusal names it: `VOICE_BUY_LIMIT=2/day`, or `2/day`. */
    limit: (variable: string, value: string): string => (locked ? `${variable}=${value}` : value),
    /** How a refusal ends: who may change the rule. */
    whoChanges: (variable: string): string =>
      locked
        ? `Whoever runs Voice Ops can change ${variable} in the environment.`
        : 'An admin can change it with /voice settings.',
    /** Where a role is granted, as a denial names it: `VOICE_OPERATORS in the environment`, or the settings. */
    grantedIn: (variable: 'VOICE_OPERATORS' | 'VOICE_ADMINS'): string =>
      locked
        ? `${variable} in the environment`
        : `the ${variable === 'VOICE_ADMINS' ? 'admins' : 'operators'} in /voice settings`,
    /** Who a denial says can grant the role. */
    grantor: locked ? 'Whoever runs Voice Ops' : 'An admin',
    /** Whom a viewer's help and Home tab say to ask for a role (the test app's one admin). */
    askForRole: locked
      ? 'ask whoever runs Voice Ops to add your Slack user id (or a user group you are in) to `VOICE_OPERATORS`'
      : 'ask an admin (<@UADMIN>) for the operator role',
    /** After a rule's line in help and on the Home tab: `` (`VOICE_BUY_LIMIT`)``, or nothing. */
    lineTag: (variable: string): string => (locked ? ` (\`${variable}\`)` : ''),
    /** The last line under the rules in help and on the Home tab. */
    rulesFooter: locked
      ? 'Admins change these rules with `/voice settings`; those named by their key, whoever runs Voice Ops.'
      : 'Admins change these rules with `/voice settings`.',
  };
}

export interface Scrape {
  status: number;
  contentType: string;
  text: string;
}

/** GET /metrics of the app. */
export async function scrape(t: TestApp): Promise<Scrape> {
  const { statusCode, headers, body } = await request(`${t.app.url}/metrics`);
  return { status: statusCode, contentType: String(headers['content-type']), text: await body.text() };
}

/** The value of one sample (`name{labels} value`), 0 when the series does not exist yet. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return 0;
}
