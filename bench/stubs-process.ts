// The world outside the app, in a process of its own: the fake Slack Web API of the test harness (which also
// receives the response_url posts) and the provider sandbox. Kept apart so that its work never runs on the event
// loop of the load generator (which would slow the app's measured latency and not the bare app's), nor counts
// in the memory of the app under test.
//
// A second sandbox holds the account of the listing bench (bench/lists.ts): 10,000 purchased numbers and 1,000 agents.
//
// Requests: `responses` (response_url posts and Web API calls so far, and CPU time), `clear`, `latency`
// (the sandbox's added latency), `modal` (sends one command and times its views.open), `list` (sends one command,
// button, Home tab opening or type-ahead and times its answer), `buys` and `claims` (bench/buys.ts), `stop`.
import { performance } from 'node:perf_hooks';
import { ProviderClient } from '../src/provider/client.js';
import { type Sandbox, startSandbox } from '../src/sandbox/server.js';
import { RESPONSE_URL, type SlackCall, startFakeSlack } from '../test/harness/fake-slack.js';
import {
  appHomeOpened,
  blockAction,
  blockSuggestion,
  newTriggerId,
  OPS_CHANNEL,
  slashCommand,
} from '../test/harness/payloads.js';
import { JSON_CONTENT_TYPE, postToSlackApp } from '../test/harness/signing.js';
import { buttonValue } from './blocks.js';
import { type BuysRequest, buyFlow, type ClaimsRequest } from './buys.js';
import { SCALE } from './constants.js';
import { cpuMs, type Request, serveParent } from './ipc.js';

export interface StubsReady {
  slackApiUrl: string;
  /** A response_url on the fake; every command of the load points here. */
  responseUrl: string;
  sandboxUrl: string;
  sandboxKey: string;
  /** The sandbox of the listing bench, with SCALE's numbers and agents (same key). */
  scaleSandboxUrl: string;
}

export const SEED_AGENTS = 5;
export const SEED_NUMBERS = 5;

export interface StubCounts {
  responses: number;
  webApi: number;
  cpuMs: number;
}

export interface ModalTiming {
  /** The command's HTTP answer (the ack), ms after sending it. */
  ackMs: number;
  /** The views.open call at the fake, ms after sending the command. */
  openMs: number;
  /** The views.update that filled the modal in, ms after sending the command (when asked for and seen). */
  filledMs?: number;
}

const slack = await startFakeSlack();
const sandbox: Sandbox = await startSandbox({ port: 0 });
await seed(sandbox);
// Seeded straight into its SQLite (12 regions of 1,000 numbers for sale, SCALE.numbers of them bought).
const scaleSandbox: Sandbox = await startSandbox({ port: 0, numbersPerRegion: 1000, seed: SCALE });
const buys = buyFlow(slack, sandbox);
let responses = 0;
let webApi = 0;

/** A small account, so that listings and the map form have something to show: agents and voice numbers. */
async function seed(target: Sandbox): Promise<void> {
  const client = new ProviderClient({ baseUrl: target.url, apiKey: target.apiKey });
  for (let i = 1; i <= SEED_AGENTS; i++) await client.createAgent({ name: `Bench agent ${i}`, language: 'en-US' });
  const page = await client.searchNumbers({ region: 'US' });
  const voiceNumbers = page.data.filter((number) => number.capabilities.includes('voice')).slice(0, SEED_NUMBERS);
  for (const number of voiceNumbers) await client.buyNumber(number.number);
  await client.close();
}

function count(): void {
  // The harness's fake records every call; the bench only needs how many, so the log is cut as it goes.
  for (const call of slack.calls()) {
    if (call.method === RESPONSE_URL) responses++;
    else webApi++;
  }
  slack.clear();
}
const counter = setInterval(count, 250);

interface ModalRequest extends Request {
  eventsUrl: string;
  signingSecret: string;
  text: string;
  userId: string;
  /** Unique per command: it comes back in the filled modal's private_metadata. */
  channelId: string;
  waitForFill: boolean;
  timeoutMs: number;
}

async function timeModal(request: ModalRequest): Promise<ModalTiming> {
  const triggerId = newTriggerId();
  const body = slashCommand({
    text: request.text,
    userId: request.userId,
    channelId: request.channelId,
    triggerId,
    responseUrl: slack.respondUrl(),
  });
  let openedAt = Number.NaN;
  let filledAt = Number.NaN;
  const since = slack.mark();
  const opened = slack.waitFor(
    'views.open',
    (call: SlackCall) => {
      if (call.body.trigger_id !== triggerId) return false;
      openedAt = performance.now();
      return true;
    },
    { timeoutMs: request.timeoutMs, since },
  );
  const filled = request.waitForFill
    ? slack.waitFor(
        'views.update',
        (call: SlackCall) => {
          if (!JSON.stringify(call.body.view ?? '').includes(request.channelId)) return false;
          filledAt = performance.now();
          return true;
        },
        { timeoutMs: request.timeoutMs, since },
      )
    : undefined;
  // Handled here too, so that a failed command leaves no rejection unhandled; awaited below.
  opened.catch(() => undefined);
  filled?.catch(() => undefined);
  // Both waits are registered before the command is sent, so they are resolved as the calls arrive and the
  // periodic count may clear the log meanwhile.
  const sentAt = performance.now();
  const ack = await postToSlackApp(request.eventsUrl, request.signingSecret, body);
  const ackMs = performance.now() - sentAt;
  if (ack.status !== 200) throw new Error(`the command was answered ${ack.status}: ${ack.body}`);
  await opened;
  await filled?.catch(() => undefined);
  return {
    ackMs,
    openMs: openedAt - sentAt,
    ...(Number.isNaN(filledAt) ? {} : { filledMs: filledAt - sentAt }),
  };
}

/** One request of the listing bench: what to send, as whom, and which button's value to bring back. */
interface ListRequest extends Request {
  eventsUrl: string;
  signingSecret: string;
  userId: string;
  /** A slash command, a button in an ephemeral listing, the Home tab opened, or typing in a type-ahead picker. */
  kind: 'command' | 'button' | 'home' | 'typing';
  /** The command's text, or what was typed. */
  text?: string;
  actionId?: string;
  blockId?: string;
  /** The button's value. */
  value?: string;
  /** The action_id of the button (Next) whose value the answer should bring back. */
  nextActionId?: string;
  timeoutMs: number;
}

export interface ListTiming {
  /** The request's HTTP answer, ms after sending it. */
  ackMs: number;
  /** Its answer at the fake (response_url post, views.publish), ms after sending; a type-ahead's is its ack. */
  answerMs: number;
  /** The value of the answer's `nextActionId` button, when it has one. */
  next?: string;
  /** Options a type-ahead answered. */
  options?: number;
}

let lists = 0;

async function timeList(request: ListRequest): Promise<ListTiming> {
  const responseUrlId = `list${++lists}`;
  const responseUrl = slack.respondUrl(responseUrlId);
  const { userId } = request;
  const body =
    request.kind === 'command'
      ? slashCommand({ text: request.text ?? '', userId, responseUrl })
      : request.kind === 'button'
        ? blockAction({
            userId,
            actionId: request.actionId ?? '',
            value: request.value ?? '',
            container: { type: 'message', channelId: OPS_CHANNEL, isEphemeral: true },
            responseUrl,
          })
        : request.kind === 'home'
          ? appHomeOpened({ userId })
          : blockSuggestion({
              userId,
              actionId: request.actionId ?? '',
              blockId: request.blockId ?? '',
              value: request.text ?? '',
            });
  let answeredAt = Number.NaN;
  const since = slack.mark();
  const answer =
    request.kind === 'typing'
      ? undefined
      : slack.waitFor(
          request.kind === 'home' ? 'views.publish' : RESPONSE_URL,
          (call: SlackCall) => {
            const ours = request.kind === 'home' ? call.body.user_id === userId : call.responseUrlId === responseUrlId;
            if (ours) answeredAt = performance.now();
            return ours;
          },
          { timeoutMs: request.timeoutMs, since },
        );
  answer?.catch(() => undefined);
  const sentAt = performance.now();
  const ack = await postToSlackApp(
    request.eventsUrl,
    request.signingSecret,
    body,
    request.kind === 'home' ? { contentType: JSON_CONTENT_TYPE } : {},
  );
  const ackMs = performance.now() - sentAt;
  if (ack.status !== 200) throw new Error(`${request.kind} was answered ${ack.status}: ${ack.body}`);
  // A command's answer that waited on no I/O rides in its acknowledgement (answer-in-ack.ts): that is its answer.
  if (request.kind === 'command' && ack.body.length > 0) return { ackMs, answerMs: ackMs };
  if (!answer) {
    const json = ack.json as { options?: unknown[]; option_groups?: { options: unknown[] }[] } | undefined;
    const options =
      (json?.options?.length ?? 0) + (json?.option_groups ?? []).reduce((n, g) => n + g.options.length, 0);
    return { ackMs, answerMs: ackMs, options };
  }
  const answered = await answer;
  const next = request.nextActionId ? buttonValue(answered.body, request.nextActionId) : undefined;
  return { ackMs, answerMs: answeredAt - sentAt, ...(next === undefined ? {} : { next }) };
}

serveParent(
  {
    slackApiUrl: slack.apiUrl,
    responseUrl: slack.respondUrl('bench'),
    sandboxUrl: sandbox.url,
    sandboxKey: sandbox.apiKey,
    scaleSandboxUrl: scaleSandbox.url,
  } satisfies StubsReady,
  async (request) => {
    switch (request.op) {
      case 'responses':
        count();
        return { responses, webApi, cpuMs: cpuMs() } satisfies StubCounts;
      case 'latency':
        sandbox.faults.setLatency(Number(request.ms));
        return null;
      case 'modal':
        return timeModal(request as ModalRequest);
      case 'list':
        return timeList(request as ListRequest);
      case 'buys':
        return buys.buys(request as Request & BuysRequest);
      case 'claims':
        return buys.claims(request as Request & ClaimsRequest);
      case 'stop':
        clearInterval(counter);
        await slack.close();
        await sandbox.close();
        await scaleSandbox.close();
        return null;
      default:
        throw new Error(`unknown request ${request.op}`);
    }
  },
);
