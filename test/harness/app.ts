// Everything one end-to-end test file needs: the real app (Bolt over HTTP, or in Socket Mode) talking to a fake Slack
// Web API and to the sandbox provider, with a temporary database and a captured log. Requests are sent as Slack
// sends them: signed HTTP posts, or envelopes over the fake Slack's Socket Mode connection.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, parseConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { StepExecution } from '../../src/playground/functions.js';
import type { ResponseOrigin } from '../../src/playground/workspace.js';
import { type Sandbox, type SandboxSeed, startSandbox } from '../../src/sandbox/server.js';
import { type RunningVoiceOps, startVoiceOps } from '../../src/server.js';
import type { SlackBudgets } from '../../src/slack/clients.js';
import type { Recheck } from '../../src/slack/identity.js';
import { type TestDatabase, testDatabase } from './database.js';
import { type FakeSlack, RESPONSE_URL, type SlackCall, startFakeSlack } from './fake-slack.js';
import { type CapturedLogs, captureLogs } from './logs.js';
import {
  ADMIN,
  type AppHomeOpenedOptions,
  appHomeOpened,
  type BlockActionOptions,
  type BlockSuggestionOptions,
  blockAction,
  blockSuggestion,
  functionExecuted,
  OPERATOR,
  OPS_CHANNEL,
  type SlashCommandOptions,
  slashCommand,
  type ViewClosedOptions,
  type ViewSubmissionOptions,
  viewClosed,
  viewSubmission,
} from './payloads.js';
import { sweepForSecrets } from './secrets.js';
import { type AppResponse, JSON_CONTENT_TYPE, type PostOptions, postToSlackApp } from './signing.js';

export { ADMIN, OPERATOR, OPS_CHANNEL, VIEWER } from './payloads.js';

export const SIGNING_SECRET = 'test-signing-secret';
export const BOT_TOKEN = 'xoxb-test-bot-token-1234567890';
export const APP_TOKEN = 'xapp-1-AVOICE-1234567890-test-app-token';
export const NOTIFY_CHANNEL = 'CNOTIFY';

export interface TestAppOptions {
  /** VOICE_ADMINS; default ['UADMIN']. */
  admins?: string[];
  /** VOICE_OPERATORS; default ['UOPERATOR']. */
  operators?: string[];
  /** NOTIFY_CHANNEL_ID; default 'CNOTIFY', null leaves it unset. */
  notifyChannel?: string | null;
  /**
   * Where the roles, guardrails and channels given here (and in `env`) come from: the environment, which locks them
   * (the default), or settings stored as an admin would set them in Slack, which admins may change.
   */
  settingsFrom?: 'environment' | 'slack';
  /** Extra environment, applied last. */
  env?: Record<string, string>;
  /** User groups (S…) and their members, answered by the fake's usergroups.users.list. */
  groups?: Record<string, string[]>;
  /** The app's clock. */
  now?: () => Date;
  /** Latency added to every sandbox answer. */
  sandboxLatencyMs?: number;
  /** The sandbox's numbers for sale in each region (default 55). */
  sandboxNumbersPerRegion?: number;
  /** Agents, purchased numbers and routes written into the sandbox before the app starts. */
  sandboxSeed?: SandboxSeed;
  /** Slack timeouts and retries by use, shorter than the app's so that a hang costs milliseconds. */
  slackBudgets?: SlackBudgets;
  /** How often an unreachable Slack is tried again, and how long an answer of auth.test is trusted. */
  slackRecheck?: Recheck;
  /** How long /readyz answers from its last checks; default 0 (each probe checks, one run at a time). */
  readinessRefreshMs?: number;
  /** Prepares the fake Slack before the app starts (e.g. makes auth.test fail). */
  beforeStart?: (slack: FakeSlack) => void;
  /**
   * Socket Mode (SLACK_APP_TOKEN set): the app connects to the fake Slack's Socket Mode stand-in, and every request
   * below travels as an envelope whose ack stands in for the HTTP answer. Default: HTTP mode.
   */
  socketMode?: boolean;
}

/** What the app answered, plus what the request carried that a test may need later. */
export interface SentRequest extends AppResponse {
  triggerId: string;
  /** Id of the fake response_url the request carried (undefined when it carried none). */
  responseUrlId?: string;
}

export type CommandExtra = Partial<Omit<SlashCommandOptions, 'text' | 'userId'>> & PostOptions;

export type ActionOptions = Omit<BlockActionOptions, 'userId'> & { userId?: string } & PostOptions;

export type SubmitOptions = Omit<ViewSubmissionOptions, 'userId'> & { userId?: string } & PostOptions;

export interface TestApp {
  app: RunningVoiceOps;
  slack: FakeSlack;
  sandbox: Sandbox;
  config: Config;
  dir: string;
  /** The SQLite file the app keeps its records in, on the SQLite engine (on Postgres there is none). */
  dbPath: string;
  /** What the app keeps its records in, on this run's engine. */
  database: TestDatabase;
  logs: CapturedLogs;
  signingSecret: string;
  /** The app's request URL, `${app.url}/slack/events`; HTTP mode only (Socket Mode has none: reading it throws). */
  readonly eventsUrl: string;
  /** `/voice <text>` from `user`, with a fresh fake response_url. */
  command(text: string, user?: string, extra?: CommandExtra): Promise<SentRequest>;
  /** A block action; from a message it carries a fresh fake response_url (views carry none, as in Slack). */
  action(options: ActionOptions): Promise<SentRequest>;
  /** A modal's view_submission. */
  submit(options: SubmitOptions): Promise<SentRequest>;
  /** A type-ahead select's block_suggestion; the options come back in the acknowledgement (`json`). */
  suggest(options: Omit<BlockSuggestionOptions, 'userId'> & { userId?: string } & PostOptions): Promise<AppResponse>;
  /** A modal's view_closed. */
  closeView(options: Omit<ViewClosedOptions, 'userId'> & { userId?: string } & PostOptions): Promise<AppResponse>;
  /**
   * A workflow step runs: Slack starts its execution and delivers function_executed (a JSON body). `deliver` sends the
   * same delivery again, as Slack retries one. `ranBy` is whose click ran the workflow, which Slack puts in the step's
   * interactivity input: by default the person the step names (`user_id`), as a workflow set up as docs/workflows.md
   * says; null leaves the input out, as a workflow started by a schedule or an event does.
   */
  runStep(
    callbackId: string,
    inputs: Record<string, unknown>,
    options?: PostOptions & { ranBy?: string | null },
  ): Promise<{
    execution: StepExecution;
    response: AppResponse;
    deliver: (options?: PostOptions) => Promise<AppResponse>;
  }>;
  /** The app_home_opened event for `user` (a JSON body). */
  homeOpened(user?: string, extra?: Omit<AppHomeOpenedOptions, 'userId'> & PostOptions): Promise<AppResponse>;
  /** Any body, signed, to the app's request URL; in Socket Mode, as the envelope Slack would send it in. */
  post(body: string, options?: PostOptions): Promise<AppResponse>;
  /** Waits until the app handles no delivery: every answer, announcement and Home refresh done. */
  settled(): Promise<void>;
  /** Waits for the app's post to the response_url with this id. */
  respondedTo(responseUrlId: string | undefined, timeoutMs?: number): Promise<SlackCall>;
  /** Stops the app, the sandbox and the fake Slack, and removes the temporary directory. Safe to call twice. */
  close(): Promise<void>;
}

/** Slack's answers to blocks or views it cannot accept. */
const BLOCK_KIT_ERRORS = new Set(['invalid_blocks', 'invalid_arguments', 'no_text']);

let responseUrlCounter = 0;
const freshResponseUrlId = () => `r${++responseUrlCounter}`;

/** Where a button's response_url leads: its presser, and the message that held it. */
function origin(fields: ActionOptions): ResponseOrigin {
  const { container } = fields;
  if (container.type !== 'message') return { userId: fields.userId ?? ADMIN };
  return { userId: fields.userId ?? ADMIN, channel: container.channelId, messageTs: container.messageTs };
}

/** Waits for the post to the fake response_url `responseUrlId`. */
export function respondedTo(
  fake: FakeSlack,
  responseUrlId: string | undefined,
  timeoutMs = 15_000,
): Promise<SlackCall> {
  if (responseUrlId === undefined) return Promise.reject(new Error('that request carried no response_url'));
  return fake.waitFor(RESPONSE_URL, (call) => call.responseUrlId === responseUrlId, {
    timeoutMs,
    description: `to response_url id ${responseUrlId}`,
  });
}

function splitPostOptions<T extends PostOptions>(options: T): [Omit<T, keyof PostOptions>, PostOptions] {
  const { timestamp, signature, retryNum, contentType, headers, timeoutMs, ...rest } = options;
  const given = Object.entries({ timestamp, signature, retryNum, contentType, headers, timeoutMs }).filter(
    ([, v]) => v !== undefined,
  );
  return [rest, Object.fromEntries(given) as PostOptions];
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const cleanups: (() => Promise<void>)[] = [];
  const cleanUp = async () => {
    const errors: unknown[] = [];
    for (const step of cleanups.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'closing the test app failed');
  };

  try {
    const slack = await startFakeSlack();
    cleanups.push(() => slack.close());
    for (const [group, members] of Object.entries(options.groups ?? {})) slack.setGroupMembers(group, members);
    options.beforeStart?.(slack);

    const sandbox = await startSandbox({
      port: 0,
      latencyMs: options.sandboxLatencyMs,
      numbersPerRegion: options.sandboxNumbersPerRegion,
      seed: options.sandboxSeed,
    });
    cleanups.push(() => sandbox.close());

    const dir = await mkdtemp(join(tmpdir(), 'voice-ops-test-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const database = await testDatabase(dir);
    cleanups.push(() => database.remove());
    const dbPath = join(dir, 'voice-ops.db');
    const logs = captureLogs();
    // Runs after the app has stopped (cleanups run in reverse) and before its database is removed.
    cleanups.push(async () =>
      sweepForSecrets({
        slack,
        logText: logs.text(),
        databaseText: await database.text(),
        credentials: [BOT_TOKEN, APP_TOKEN, SIGNING_SECRET, sandbox.apiKey, ...slack.functions.tokens()],
      }),
    );

    // A message or view that Slack would refuse for its blocks is a bug in a view, whichever test came across it.
    cleanups.push(async () => {
      const refused = slack.workspace.refusals().filter((entry) => BLOCK_KIT_ERRORS.has(entry.error));
      const lines = refused.map((entry) => `${entry.method}: ${entry.error} ${entry.problems.join('; ')}`);
      if (lines.length > 0) throw new Error(`Slack would refuse these blocks:\n${lines.join('\n')}`);
    });

    const notifyChannel = options.notifyChannel === undefined ? NOTIFY_CHANNEL : options.notifyChannel;
    const parsed = parseConfig({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: slack.apiUrl,
      PORT: '0',
      VOICE_API_BASE_URL: sandbox.url,
      VOICE_API_KEY: sandbox.apiKey,
      VOICE_API_TIMEOUT_MS: '2000',
      ...database.env,
      // The embedded sandbox is not used, but its file would go beside the app's: in the test's folder.
      DATABASE_PATH: dbPath,
      ...(notifyChannel === null ? {} : { NOTIFY_CHANNEL_ID: notifyChannel }),
      VOICE_ADMINS: (options.admins ?? [ADMIN]).join(','),
      VOICE_OPERATORS: (options.operators ?? [OPERATOR]).join(','),
      LOG_LEVEL: 'debug',
      ...(options.socketMode ? { SLACK_APP_TOKEN: APP_TOKEN } : {}),
      ...options.env,
    });
    const config: Config =
      options.settingsFrom === 'slack'
        ? { ...parsed, settings: { locked: {}, lockedBy: {}, seed: parsed.settings.locked } }
        : parsed;
    const logger = createLogger(config.logLevel, logs.stream);
    const app = await startVoiceOps(config, {
      logger,
      ...(options.now ? { now: options.now } : {}),
      slackBudgets: options.slackBudgets,
      slackRecheck: options.slackRecheck,
      readinessRefreshMs: options.readinessRefreshMs ?? 0,
    });
    cleanups.push(() => app.stop());
    // The start-up pass of the reconciler reads the provider; a test begins once it is done, so that the requests
    // a test counts are its own.
    await app.reconcile();
    // In Socket Mode, app.url serves only the health routes: requests travel over the socket.
    const eventsUrl = options.socketMode ? undefined : `${app.url}/slack/events`;

    const post = (body: string, postOptions: PostOptions = {}) =>
      eventsUrl === undefined
        ? slack.socketMode.deliver(body, postOptions)
        : postToSlackApp(eventsUrl, SIGNING_SECRET, body, postOptions);

    let closing: Promise<void> | undefined;
    return {
      app,
      slack,
      sandbox,
      config,
      dir,
      dbPath,
      database,
      logs,
      signingSecret: SIGNING_SECRET,
      get eventsUrl() {
        if (eventsUrl === undefined) throw new Error('in Socket Mode the app has no request URL');
        return eventsUrl;
      },
      post,
      async command(text, user = ADMIN, extra = {}) {
        const [fields, postOptions] = splitPostOptions(extra);
        const responseUrlId = fields.responseUrl === undefined ? freshResponseUrlId() : undefined;
        const triggerId = fields.triggerId ?? slack.issueTriggerId(user);
        const body = slashCommand({
          ...fields,
          ...(responseUrlId === undefined
            ? {}
            : {
                responseUrl: slack.respondUrl(responseUrlId, {
                  userId: user,
                  channel: fields.channelId ?? OPS_CHANNEL,
                }),
              }),
          text,
          userId: user,
          triggerId,
        });
        const answer = await post(body, postOptions);
        // Slack shows a reply carried in the acknowledgement as it shows one posted to the response_url.
        if (responseUrlId !== undefined) slack.showAcknowledgement(responseUrlId, answer.json);
        return { ...answer, triggerId, responseUrlId };
      },
      async action(actionOptions) {
        const [fields, postOptions] = splitPostOptions(actionOptions);
        const fromMessage = fields.container.type === 'message';
        const responseUrlId = fromMessage && fields.responseUrl === undefined ? freshResponseUrlId() : undefined;
        const triggerId = fields.triggerId ?? slack.issueTriggerId(fields.userId ?? ADMIN);
        const { container } = fields;
        const body = blockAction({
          ...fields,
          userId: fields.userId ?? ADMIN,
          triggerId,
          // A button in a message a workflow step posted carries the step's function_data, as Slack sends it.
          functionInteraction:
            container.type === 'message'
              ? slack.functions.interactionWith(container.channelId, container.messageTs)
              : undefined,
          ...(responseUrlId === undefined ? {} : { responseUrl: slack.respondUrl(responseUrlId, origin(fields)) }),
        });
        return { ...(await post(body, postOptions)), triggerId, responseUrlId };
      },
      async submit(submitOptions) {
        const [fields, postOptions] = splitPostOptions(submitOptions);
        const triggerId = fields.triggerId ?? slack.issueTriggerId(fields.userId ?? ADMIN);
        const body = viewSubmission({ ...fields, userId: fields.userId ?? ADMIN, triggerId });
        return { ...(await post(body, postOptions)), triggerId };
      },
      suggest(suggestOptions) {
        const [fields, postOptions] = splitPostOptions(suggestOptions);
        return post(blockSuggestion({ ...fields, userId: fields.userId ?? ADMIN }), postOptions);
      },
      closeView(closeOptions) {
        const [fields, postOptions] = splitPostOptions(closeOptions);
        return post(viewClosed({ ...fields, userId: fields.userId ?? ADMIN }), postOptions);
      },
      async runStep(callbackId, inputs, { ranBy, ...options } = {}) {
        const named = typeof inputs.user_id === 'string' ? inputs.user_id : undefined;
        const execution = slack.functions.start(callbackId, inputs, ranBy === null ? undefined : (ranBy ?? named));
        const body = functionExecuted(execution);
        const deliver = (again: PostOptions = {}) => post(body, { contentType: JSON_CONTENT_TYPE, ...again });
        return { execution, response: await deliver(options), deliver };
      },
      homeOpened(user = ADMIN, extra = {}) {
        const [fields, postOptions] = splitPostOptions(extra);
        return post(appHomeOpened({ ...fields, userId: user }), { contentType: JSON_CONTENT_TYPE, ...postOptions });
      },
      respondedTo: (responseUrlId, timeoutMs) => respondedTo(slack, responseUrlId, timeoutMs),
      settled: () => app.idle(),
      close() {
        closing ??= cleanUp();
        return closing;
      },
    };
  } catch (error) {
    await cleanUp().catch(() => undefined);
    throw error;
  }
}
