// The world outside the app, in a process of its own: the fake Slack Web API of the test harness (which also
// receives the response_url posts) and the provider sandbox. Kept apart so that its work never runs on the event
// loop of the load generator (which would slow the app's measured latency and not the bare app's), nor counts
// in the memory of the app under test.
//
// Requests: `responses` (response_url posts and Web API calls so far, and CPU time), `clear`, `latency`
// (the sandbox's added latency), `modal` (sends one command and times its views.open), `stop`.
import { performance } from 'node:perf_hooks';
import { ProviderClient } from '../src/provider/client.js';
import { type Sandbox, startSandbox } from '../src/sandbox/server.js';
import { RESPONSE_URL, type SlackCall, startFakeSlack } from '../test/harness/fake-slack.js';
import { newTriggerId, slashCommand } from '../test/harness/payloads.js';
import { postToSlackApp } from '../test/harness/signing.js';
import { cpuMs, type Request, serveParent } from './ipc.js';

export interface StubsReady {
  slackApiUrl: string;
  /** A response_url on the fake; every command of the load points here. */
  responseUrl: string;
  sandboxUrl: string;
  sandboxKey: string;
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

serveParent(
  {
    slackApiUrl: slack.apiUrl,
    responseUrl: slack.respondUrl('bench'),
    sandboxUrl: sandbox.url,
    sandboxKey: sandbox.apiKey,
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
      case 'stop':
        clearInterval(counter);
        await slack.close();
        await sandbox.close();
        return null;
      default:
        throw new Error(`unknown request ${request.op}`);
    }
  },
);
