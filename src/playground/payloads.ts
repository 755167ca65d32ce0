// The bodies Slack sends to the app, byte for byte where it matters: slash commands are form fields; buttons,
// selects and modals are one form field `payload` holding JSON; Events API deliveries are a JSON body.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { checkboxOption } from './block-kit.js';
import { APP_ID as API_APP_ID, BOT_ID, BOT_USER_ID, TEAM_ID } from './fake-slack.js';
import type { FunctionInteraction, StepExecution } from './functions.js';

export const TEAM_DOMAIN = 'test';

// Slack ids are upper-case letters and digits (no underscores: the app's config rejects `U_ADMIN`).
/** The default actor of every payload, and the default VOICE_ADMINS of the test app. */
export const ADMIN = 'UADMIN';
/** The default VOICE_OPERATORS of the test app. */
export const OPERATOR = 'UOPERATOR';
/** In neither list: a viewer. */
export const VIEWER = 'UVIEWER';
/** The channel commands are typed in. */
export const OPS_CHANNEL = 'COPS';
/** The deprecated verification token Slack still sends; Bolt ignores it. */
export const VERIFICATION_TOKEN = 'verification-token';

let counter = 0;
const next = () => ++counter;

/** A trigger_id shaped like Slack's, unique per call: `1234567890.1234567890.0123abcd…`. */
export function newTriggerId(): string {
  return `${Math.floor(Date.now() / 1000)}.${String(next()).padStart(10, '0')}.${randomBytes(16).toString('hex')}`;
}

/** Slack's timestamps: seconds with six decimals, unique per call. */
export function newTs(): string {
  return `${Math.floor(Date.now() / 1000)}.${String(next() % 1_000_000).padStart(6, '0')}`;
}

const userName = (userId: string) => userId.toLowerCase();

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function payload(body: unknown): string {
  return form({ payload: JSON.stringify(body) });
}

// ---------------------------------------------------------------------------------------------------------------
// Slash commands

export interface SlashCommandOptions {
  text: string;
  userId?: string;
  userName?: string;
  channelId?: string;
  channelName?: string;
  teamId?: string;
  command?: string;
  /** Default: a fresh one. */
  triggerId?: string;
  /** Default: a hooks.slack.com URL nobody listens on; pass `fake.respondUrl()` to see respond(). */
  responseUrl?: string;
  /** Typed in a workspace of this Enterprise Grid org. */
  enterpriseId?: string;
  /** The app is installed across that org (`is_enterprise_install`). */
  orgWide?: boolean;
}

export function slashCommand(options: SlashCommandOptions): string {
  const userId = options.userId ?? ADMIN;
  const teamId = options.teamId ?? TEAM_ID;
  return form({
    token: VERIFICATION_TOKEN,
    team_id: teamId,
    team_domain: TEAM_DOMAIN,
    channel_id: options.channelId ?? OPS_CHANNEL,
    channel_name: options.channelName ?? 'ops',
    user_id: userId,
    user_name: options.userName ?? userName(userId),
    command: options.command ?? '/voice',
    text: options.text,
    api_app_id: API_APP_ID,
    ...(options.enterpriseId ? { enterprise_id: options.enterpriseId, enterprise_name: 'Org' } : {}),
    is_enterprise_install: String(options.orgWide ?? false),
    response_url:
      options.responseUrl ?? `https://hooks.slack.com/commands/${teamId}/${next()}/${randomBytes(12).toString('hex')}`,
    trigger_id: options.triggerId ?? newTriggerId(),
  });
}

// ---------------------------------------------------------------------------------------------------------------
// View state values

const selectedOption = z.object({
  text: z.object({ type: z.literal('plain_text'), text: z.string(), emoji: z.boolean() }),
  value: z.string(),
});
type SelectedOption = z.infer<typeof selectedOption>;

/** As a submitted view's state holds it, empty as `null` or `[]`; the page's requests carry these, within limits. */
export const inputValue = z.discriminatedUnion('type', [
  z.object({ type: z.literal('plain_text_input'), value: z.string().max(10_000).nullable() }),
  z.object({ type: z.literal('static_select'), selected_option: selectedOption.nullable() }),
  /** A type-ahead, whose options come from the app's block_suggestion answers. */
  z.object({ type: z.literal('external_select'), selected_option: selectedOption.nullable() }),
  z.object({ type: z.literal('multi_external_select'), selected_options: z.array(selectedOption).max(100) }),
  /** People picked, by user id. */
  z.object({ type: z.literal('multi_users_select'), selected_users: z.array(z.string().max(255)).max(100) }),
  /** Channels picked, by id. */
  z.object({
    type: z.literal('multi_conversations_select'),
    selected_conversations: z.array(z.string().max(255)).max(100),
  }),
  /** The boxes ticked, as the view gave their options (a text may be mrkdwn). */
  z.object({ type: z.literal('checkboxes'), selected_options: z.array(checkboxOption).max(10) }),
]);

export type StateValue =
  | z.infer<typeof inputValue>
  /** The files uploaded through a file_input, as Slack describes them to the app. */
  | { type: 'file_input'; files: { id: string; name: string; size: number; url_private_download: string }[] };

/** `view.state.values`: block id → action id → value. */
export type StateValues = Record<string, Record<string, StateValue>>;

/** A plain_text_input as submitted; an empty optional input arrives as `null`. */
export function textInput(value: string | null): StateValue {
  return { type: 'plain_text_input', value };
}

/** A static_select as submitted; nothing chosen arrives as `selected_option: null`. */
export function selectInput(value: string | null, text: string = value ?? ''): StateValue {
  return { type: 'static_select', selected_option: value === null ? null : option(value, text) };
}

/** A multi_external_select as submitted, with these values chosen. */
export function multiSelectInput(values: string[]): StateValue {
  return { type: 'multi_external_select', selected_options: values.map((value) => option(value)) };
}

export function usersInput(userIds: string[]): StateValue {
  return { type: 'multi_users_select', selected_users: userIds };
}

export function checkboxesInput(values: string[]): StateValue {
  return { type: 'checkboxes', selected_options: values.map((value) => option(value)) };
}

function option(value: string, text: string = value): SelectedOption {
  return { text: { type: 'plain_text', text, emoji: true }, value };
}

function user(userId: string, teamId: string, name?: string) {
  const username = name ?? userName(userId);
  return { id: userId, username, name: username, team_id: teamId };
}

const team = (teamId: string) => ({ id: teamId, domain: TEAM_DOMAIN });

export interface ViewOptions {
  viewId?: string;
  viewType?: 'modal' | 'home';
  callbackId?: string;
  privateMetadata?: string;
  stateValues?: StateValues;
  teamId?: string;
  title?: string;
  blocks?: unknown[];
}

/** A view id shaped like Slack's, unique per call. */
export function newViewId(): string {
  return `V${String(next()).padStart(8, '0')}`;
}

/** A view as Slack includes it in interaction payloads (`ViewOutput` in Bolt's types). */
export function viewOutput(options: ViewOptions = {}) {
  const id = options.viewId ?? newViewId();
  const teamId = options.teamId ?? TEAM_ID;
  const modal = (options.viewType ?? 'modal') === 'modal';
  return {
    id,
    team_id: teamId,
    type: options.viewType ?? 'modal',
    blocks: options.blocks ?? [],
    private_metadata: options.privateMetadata ?? '',
    callback_id: options.callbackId ?? '',
    state: { values: options.stateValues ?? {} },
    hash: `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`,
    title: { type: 'plain_text', text: options.title ?? 'Voice Ops', emoji: true },
    clear_on_close: false,
    notify_on_close: false,
    close: modal ? { type: 'plain_text', text: 'Cancel', emoji: true } : null,
    submit: modal ? { type: 'plain_text', text: 'Submit', emoji: true } : null,
    previous_view_id: null,
    root_view_id: id,
    app_id: API_APP_ID,
    external_id: '',
    app_installed_team_id: teamId,
    bot_id: BOT_ID,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Block actions

export type ActionContainer =
  | { type: 'message'; channelId: string; messageTs?: string; isEphemeral?: boolean }
  | {
      type: 'view';
      viewId: string;
      viewType: 'modal' | 'home';
      privateMetadata?: string;
      callbackId?: string;
      stateValues?: StateValues;
      /** The whole view as Slack holds it (from the workspace); the fields above are then ignored. */
      view?: Record<string, unknown>;
    };

/** The view an interaction carries: the view as Slack holds it when given, else one made up from the fields. */
function carriedView(source: ViewOptions & { view?: Record<string, unknown> }, teamId: string) {
  const { view, ...fields } = source;
  return view ?? viewOutput({ viewType: 'modal', ...fields, teamId });
}

/** The `container` and `view` of an interaction inside a view. */
function viewContainer(container: Extract<ActionContainer, { type: 'view' }>, teamId: string) {
  return { container: { type: 'view', view_id: container.viewId }, view: carriedView(container, teamId) };
}

export interface BlockActionOptions {
  userId: string;
  userName?: string;
  actionId: string;
  value?: string;
  /** Makes the action a select with this option chosen. */
  selectedOption?: string | { text: string; value: string };
  /** Which select `selectedOption` was chosen in; default static_select. */
  selectType?: 'static_select' | 'external_select';
  /** The values of the message's inputs and selects (message containers). */
  state?: StateValues;
  /** Default `b_<actionId>`. */
  blockId?: string;
  buttonText?: string;
  container: ActionContainer;
  /** Only message containers carry one (Slack sends none from modals or the Home tab). Default: an unused URL. */
  responseUrl?: string;
  triggerId?: string;
  teamId?: string;
  /** Channel name for message containers. */
  channelName?: string;
  /** The message the button sat in (non-ephemeral messages only; Slack leaves it out of ephemeral ones). */
  messageText?: string;
  messageBlocks?: unknown[];
  /** The clicker's Enterprise Grid org. */
  enterpriseId?: string;
  /** From an org-wide install: `team` is null and the user's workspace is only in `user.team_id`. */
  orgWide?: boolean;
  /** The clicker's own workspace when it is not the one the click happened in (a channel shared with it). */
  userTeamId?: string;
  /** A message a workflow step posted: Slack adds the step's `function_data` and its token. */
  functionInteraction?: FunctionInteraction;
}

export function blockAction(options: BlockActionOptions): string {
  const teamId = options.teamId ?? TEAM_ID;
  const actionTs = newTs();
  const action: Record<string, unknown> = {
    action_id: options.actionId,
    block_id: options.blockId ?? `b_${options.actionId}`,
    action_ts: actionTs,
  };
  if (options.selectedOption !== undefined) {
    const chosen = options.selectedOption;
    action.type = options.selectType ?? 'static_select';
    action.selected_option = typeof chosen === 'string' ? option(chosen) : option(chosen.value, chosen.text);
  } else {
    action.type = 'button';
    action.text = { type: 'plain_text', text: options.buttonText ?? options.actionId, emoji: true };
    if (options.value !== undefined) action.value = options.value;
  }

  const body: Record<string, unknown> = {
    type: 'block_actions',
    user: user(options.userId, options.userTeamId ?? teamId, options.userName),
    api_app_id: API_APP_ID,
    token: VERIFICATION_TOKEN,
    trigger_id: options.triggerId ?? newTriggerId(),
    team: options.orgWide ? null : team(teamId),
    enterprise: options.enterpriseId ? { id: options.enterpriseId, name: 'Org' } : null,
    is_enterprise_install: options.orgWide ?? false,
  };

  const { container } = options;
  if (container.type === 'message') {
    const messageTs = container.messageTs ?? newTs();
    const isEphemeral = container.isEphemeral ?? false;
    body.container = {
      type: 'message',
      message_ts: messageTs,
      channel_id: container.channelId,
      is_ephemeral: isEphemeral,
    };
    body.channel = { id: container.channelId, name: options.channelName ?? 'ops' };
    if (!isEphemeral) {
      body.message = {
        type: 'message',
        user: BOT_USER_ID,
        bot_id: BOT_ID,
        app_id: API_APP_ID,
        text: options.messageText ?? '',
        blocks: options.messageBlocks ?? [],
        team: teamId,
        ts: messageTs,
      };
    }
    body.state = { values: options.state ?? {} };
    body.response_url =
      options.responseUrl ?? `https://hooks.slack.com/actions/${teamId}/${next()}/${randomBytes(12).toString('hex')}`;
  } else {
    Object.assign(body, viewContainer(container, teamId));
  }
  body.actions = [action];
  return payload({ ...body, ...options.functionInteraction });
}

// ---------------------------------------------------------------------------------------------------------------
// Modals

/** Who acted on which view, for a view_submission or a view_closed. */
interface ViewEventOptions {
  userId: string;
  userName?: string;
  callbackId: string;
  privateMetadata?: string;
  viewId?: string;
  teamId?: string;
  /** The whole view as Slack holds it, state included; replaces the one built from the fields above. */
  view?: Record<string, unknown>;
}

export interface ViewSubmissionOptions extends ViewEventOptions {
  stateValues: StateValues;
  triggerId?: string;
  /** What Slack adds for a conversation picker with `response_url_enabled`: a response_url per chosen channel. */
  responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
}

export function viewSubmission(options: ViewSubmissionOptions): string {
  return viewEvent('view_submission', options, {
    trigger_id: options.triggerId ?? newTriggerId(),
    response_urls: options.responseUrls ?? [],
  });
}

export interface ViewClosedOptions extends ViewEventOptions {
  /** True when the person closed every view of the stack at once. */
  isCleared?: boolean;
}

/** Sent only for modals opened with `notify_on_close: true`. */
export function viewClosed(options: ViewClosedOptions): string {
  return viewEvent('view_closed', options, { is_cleared: options.isCleared ?? false });
}

function viewEvent(type: string, options: ViewEventOptions, fields: Record<string, unknown>): string {
  const teamId = options.teamId ?? TEAM_ID;
  return payload({
    type,
    team: team(teamId),
    user: user(options.userId, teamId, options.userName),
    api_app_id: API_APP_ID,
    token: VERIFICATION_TOKEN,
    view: carriedView(options, teamId),
    ...fields,
    is_enterprise_install: false,
    enterprise: null,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Type-ahead

export interface BlockSuggestionOptions {
  userId: string;
  userName?: string;
  actionId: string;
  blockId: string;
  /** What the person has typed so far. */
  value: string;
  /** Where the select sits. Default: a modal of its own. */
  container?: ActionContainer;
  teamId?: string;
  channelName?: string;
}

/** Sent as a person types into an external_select: the app answers with the options to show. */
export function blockSuggestion(options: BlockSuggestionOptions): string {
  const teamId = options.teamId ?? TEAM_ID;
  const container = options.container ?? { type: 'view', viewId: newViewId(), viewType: 'modal' };
  const where =
    container.type === 'message'
      ? {
          container: {
            type: 'message',
            message_ts: container.messageTs ?? newTs(),
            channel_id: container.channelId,
            is_ephemeral: container.isEphemeral ?? false,
          },
          channel: { id: container.channelId, name: options.channelName ?? 'ops' },
        }
      : viewContainer(container, teamId);
  return payload({
    type: 'block_suggestion',
    user: user(options.userId, teamId, options.userName),
    api_app_id: API_APP_ID,
    token: VERIFICATION_TOKEN,
    action_id: options.actionId,
    block_id: options.blockId,
    value: options.value,
    team: team(teamId),
    enterprise: null,
    is_enterprise_install: false,
    ...where,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Events API

export interface AppHomeOpenedOptions {
  userId: string;
  teamId?: string;
  /** The app's DM channel with the user. */
  channelId?: string;
}

/** A JSON body: post it with `contentType: JSON_CONTENT_TYPE`. */
export function appHomeOpened(options: AppHomeOpenedOptions): string {
  return eventCallback(
    {
      type: 'app_home_opened',
      user: options.userId,
      channel: options.channelId ?? `D${options.userId.replace(/[^A-Z0-9]/g, '')}`,
      tab: 'home',
    },
    options.teamId,
  );
}

/** An Events API delivery wrapping `event` (given its own `event_ts`), with a fresh event_id: a JSON body. */
export function eventCallback(event: { type: string } & Record<string, unknown>, teamId: string = TEAM_ID): string {
  const now = Date.now();
  const seconds = Math.floor(now / 1000);
  return JSON.stringify({
    token: VERIFICATION_TOKEN,
    team_id: teamId,
    api_app_id: API_APP_ID,
    event: {
      ...event,
      event_ts: `${seconds}.${String(now % 1000).padStart(3, '0')}${String(next() % 1000).padStart(3, '0')}`,
    },
    type: 'event_callback',
    event_id: `Ev${String(next()).padStart(10, '0')}`,
    event_time: seconds,
    authorizations: [
      { enterprise_id: null, team_id: teamId, user_id: BOT_USER_ID, is_bot: true, is_enterprise_install: false },
    ],
    is_ext_shared_channel: false,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Workflow Builder steps

/** function_executed, shaped as in bolt-js's test/unit/helpers/events.ts. A JSON body. */
export function functionExecuted(execution: StepExecution, teamId: string = TEAM_ID): string {
  const now = Math.floor(Date.now() / 1000);
  return eventCallback(
    {
      type: 'function_executed',
      function: {
        id: `Fn${execution.callbackId
          .replace(/[^a-z]/g, '')
          .slice(0, 8)
          .toUpperCase()}`,
        callback_id: execution.callbackId,
        title: execution.callbackId,
        description: '',
        type: 'app',
        input_parameters: [],
        output_parameters: [],
        app_id: API_APP_ID,
        date_created: now,
        date_updated: now,
        date_deleted: 0,
      },
      inputs: execution.inputs,
      function_execution_id: execution.executionId,
      workflow_execution_id: execution.workflowExecutionId,
      bot_access_token: execution.botAccessToken,
    },
    teamId,
  );
}
