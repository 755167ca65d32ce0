// What one person's Slack client shows, as data for the page. A block or element the page cannot draw arrives as
// `unsupported`, so that it is shown as a placeholder, never dropped.

import type {
  Block,
  CheckboxOption,
  ConfirmDialog,
  ConversationFilter,
  Element,
  SlackOption,
  TextObject,
} from './block-kit.js';
import { type Inline, type Names, parseMrkdwn, withEmoji } from './mrkdwn.js';
import { ANNOUNCEMENTS, type PlaygroundPerson } from './people.js';
import { WELCOME } from './welcome.js';
import type { UiWorkflowRun, WorkflowRuns } from './workflow-runs.js';
import { PLAYGROUND_STEPS, SAMPLE_WORKFLOWS, type UiStep, type WorkflowDraft } from './workflows.js';
import { BOT_USER_ID, type Message, type OpenView, type Refusal, type Workspace } from './workspace.js';

export interface UiOption {
  text: string;
  value: string;
  description?: string;
}

export interface UiConfirm {
  title: string;
  text: Inline[];
  confirm: string;
  deny: string;
  style?: 'primary' | 'danger';
}

export type UiElement =
  | {
      t: 'button';
      actionId: string;
      text: string;
      style?: 'primary' | 'danger';
      url?: string;
      confirm?: UiConfirm;
    }
  | {
      t: 'static_select';
      actionId: string;
      placeholder: string;
      options: UiOption[];
      initial?: UiOption;
      confirm?: UiConfirm;
    }
  | {
      t: 'external_select';
      actionId: string;
      placeholder: string;
      initial?: UiOption;
      minQueryLength: number;
      confirm?: UiConfirm;
    }
  | {
      t: 'multi_external_select';
      actionId: string;
      placeholder: string;
      initial: UiOption[];
      minQueryLength: number;
      maxSelected?: number;
    }
  | {
      /** A picker of the workspace's people or channels: the page offers `options`, filtered as typed. */
      t: 'multi_users_select' | 'multi_conversations_select';
      actionId: string;
      placeholder: string;
      options: UiOption[];
      initial: UiOption[];
      maxSelected?: number;
    }
  | { t: 'checkboxes'; actionId: string; options: UiCheckbox[]; initial: string[] }
  | {
      t: 'plain_text_input';
      actionId: string;
      placeholder: string;
      initial: string;
      multiline: boolean;
      maxLength?: number;
    }
  | { t: 'image'; alt: string }
  | { t: 'unsupported'; type: string };

/** A checkbox: its text and description drawn, and the option as Slack sends it back when ticked. */
export interface UiCheckbox {
  text: Inline[];
  description?: Inline[];
  value: string;
  option: CheckboxOption;
}

export type UiBlock =
  | { t: 'section'; blockId: string; text?: Inline[]; fields: Inline[][]; accessory?: UiElement }
  | { t: 'header'; blockId: string; text: string }
  | { t: 'divider'; blockId: string }
  | { t: 'context'; blockId: string; elements: ({ t: 'text'; text: Inline[] } | { t: 'image'; alt: string })[] }
  | { t: 'actions'; blockId: string; elements: UiElement[] }
  | {
      t: 'input';
      blockId: string;
      label: string;
      hint?: string;
      optional: boolean;
      element: UiElement;
      error?: string;
    }
  | { t: 'unsupported'; blockId: string; type: string };

export interface UiMessage {
  key: number;
  ts: string;
  revision: number;
  author: { id: string; name: string; app: boolean };
  /** Seen by this person alone. */
  ephemeral: boolean;
  via: Message['via'];
  /** The message's text, drawn when it has no blocks (with blocks, `text` is only the notification). */
  text: Inline[];
  blocks: UiBlock[];
}

export interface UiView {
  id: string;
  revision: number;
  type: 'modal' | 'home';
  title: string;
  submit?: string;
  close: string;
  blocks: UiBlock[];
  /** How many views are under this one in its stack. */
  under: number;
}

export interface UiRefusal {
  key: number;
  at: string;
  method: string;
  error: string;
  problems: string[];
}

export interface PageState {
  version: number;
  me: PlaygroundPerson;
  people: readonly PlaygroundPerson[];
  channels: { id: string; name: string; announcements: boolean }[];
  app: { name: string };
  conversations: Record<string, UiMessage[]>;
  /** The app's direct messages to this person (its Messages tab). */
  direct: UiMessage[];
  home?: UiView;
  modal?: UiView;
  refusals: UiRefusal[];
  /** The playground's first message, above the messages of its channel. */
  welcome: { channel: string; text: Inline[]; tries: { command: string; what: string }[] };
  /** The Workflows panel: Voice Ops' steps, ready-made workflows of them, and the workflows this person ran. */
  workflows: { steps: readonly UiStep[]; samples: readonly WorkflowDraft[]; runs: UiWorkflowRun[] };
}

export const APP_NAME = 'Voice Ops';

/** What the page's drawing knows of the workspace: names for mentions, and whom and what its pickers offer. */
interface Known extends Names {
  /** The workspace's people (not the app), as a people picker offers them. */
  people: UiOption[];
  /** Its channels, as a channel picker offers them: all public, as the playground's are. */
  channels: UiOption[];
}

function knownIn(workspace: Workspace): Known {
  return {
    user: (id) => (id === BOT_USER_ID ? APP_NAME : workspace.people.get(id)?.name),
    channel: (id) => workspace.channels.get(id)?.name,
    group: (id) => workspace.groups.get(id)?.handle,
    people: [...workspace.people.values()]
      .filter((person) => person.id !== BOT_USER_ID)
      .map((person) => ({ text: person.name, value: person.id })),
    channels: [...workspace.channels.values()].map((channel) => ({ text: `#${channel.name}`, value: channel.id })),
  };
}

function plain(text: { text: string; emoji?: boolean } | undefined): string {
  if (!text) return '';
  return text.emoji === false ? text.text : withEmoji(text.text);
}

function rich(text: TextObject, known: Known): Inline[] {
  return text.type === 'mrkdwn' ? parseMrkdwn(text.text, known) : [{ t: 'text', text: plain(text) }];
}

/** An option as the page lists it: its text with emoji, its value, its description. */
export function uiOption(given: SlackOption): UiOption {
  return {
    text: plain(given.text),
    value: given.value,
    ...(given.description ? { description: plain(given.description) } : {}),
  };
}

function element(given: Element, known: Known): UiElement {
  const confirm = (candidate: { confirm?: ConfirmDialog }): { confirm?: UiConfirm } => {
    const dialog = candidate.confirm;
    if (!dialog) return {};
    return {
      confirm: {
        title: plain(dialog.title),
        text: rich(dialog.text, known),
        confirm: plain(dialog.confirm),
        deny: plain(dialog.deny),
        ...(dialog.style ? { style: dialog.style } : {}),
      },
    };
  };
  switch (given.type) {
    case 'button':
      return {
        t: 'button',
        actionId: given.action_id ?? '',
        text: plain(given.text),
        ...(given.style ? { style: given.style } : {}),
        ...(given.url ? { url: given.url } : {}),
        ...confirm(given),
      };
    case 'static_select': {
      const options = [...(given.options ?? []), ...(given.option_groups ?? []).flatMap((group) => group.options)];
      return {
        t: 'static_select',
        actionId: given.action_id ?? '',
        placeholder: plain(given.placeholder) || 'Select an item',
        options: options.map(uiOption),
        ...(given.initial_option ? { initial: uiOption(given.initial_option) } : {}),
        ...confirm(given),
      };
    }
    case 'external_select':
      return {
        t: 'external_select',
        actionId: given.action_id ?? '',
        placeholder: plain(given.placeholder) || 'Select an item',
        minQueryLength: given.min_query_length ?? 3,
        ...(given.initial_option ? { initial: uiOption(given.initial_option) } : {}),
        ...confirm(given),
      };
    case 'multi_external_select':
      return {
        t: 'multi_external_select',
        actionId: given.action_id ?? '',
        placeholder: plain(given.placeholder) || 'Select items',
        initial: (given.initial_options ?? []).map(uiOption),
        minQueryLength: given.min_query_length ?? 3,
        ...(given.max_selected_items === undefined ? {} : { maxSelected: given.max_selected_items }),
      };
    case 'multi_users_select':
    case 'multi_conversations_select': {
      const people = given.type === 'multi_users_select';
      const offered = people ? known.people : channelsOffered(known, given.filter);
      const initial = people ? given.initial_users : given.initial_conversations;
      const named = (id: string) =>
        (people ? known.people : known.channels).find((candidate) => candidate.value === id) ?? { text: id, value: id };
      return {
        t: given.type,
        actionId: given.action_id ?? '',
        placeholder: plain(given.placeholder) || (people ? 'Select people' : 'Select channels'),
        options: offered,
        initial: (initial ?? []).map(named),
        ...(given.max_selected_items === undefined ? {} : { maxSelected: given.max_selected_items }),
      };
    }
    case 'checkboxes': {
      const checkbox = (option: CheckboxOption): UiCheckbox => ({
        text: rich(option.text, known),
        ...(option.description ? { description: rich(option.description, known) } : {}),
        value: option.value,
        option,
      });
      return {
        t: 'checkboxes',
        actionId: given.action_id ?? '',
        options: given.options.map(checkbox),
        initial: (given.initial_options ?? []).map((option) => option.value),
      };
    }
    case 'plain_text_input':
      return {
        t: 'plain_text_input',
        actionId: given.action_id ?? '',
        placeholder: plain(given.placeholder),
        initial: given.initial_value ?? '',
        multiline: given.multiline ?? false,
        ...(given.max_length === undefined ? {} : { maxLength: given.max_length }),
      };
    case 'image':
      return { t: 'image', alt: given.alt_text };
    default:
      return { t: 'unsupported', type: given.type };
  }
}

/** The channels a conversations picker lists: the playground's channels, all public (no direct messages). */
function channelsOffered(known: Known, filter: ConversationFilter | undefined): UiOption[] {
  return !filter?.include || filter.include.includes('public') ? known.channels : [];
}

function uiBlock(given: Block, known: Known, errors: Record<string, string>): UiBlock {
  const blockId = given.block_id ?? '';
  switch (given.type) {
    case 'section':
      return {
        t: 'section',
        blockId,
        ...(given.text ? { text: rich(given.text, known) } : {}),
        fields: (given.fields ?? []).map((field) => rich(field, known)),
        ...(given.accessory ? { accessory: element(given.accessory, known) } : {}),
      };
    case 'header':
      return { t: 'header', blockId, text: plain(given.text) };
    case 'divider':
      return { t: 'divider', blockId };
    case 'context':
      return {
        t: 'context',
        blockId,
        elements: given.elements.map((part) =>
          part.type === 'image' ? { t: 'image', alt: part.alt_text } : { t: 'text', text: rich(part, known) },
        ),
      };
    case 'actions':
      return { t: 'actions', blockId, elements: given.elements.map((part) => element(part, known)) };
    case 'input': {
      const error = errors[blockId];
      return {
        t: 'input',
        blockId,
        label: plain(given.label),
        ...(given.hint ? { hint: plain(given.hint) } : {}),
        optional: given.optional ?? false,
        element: element(given.element, known),
        ...(error === undefined ? {} : { error }),
      };
    }
    default:
      return { t: 'unsupported', blockId, type: given.type };
  }
}

function uiMessage(message: Message, known: Known): UiMessage {
  const isApp = message.author === BOT_USER_ID;
  const authorName = message.author === 'USLACKBOT' ? 'Slackbot' : (known.user(message.author) ?? message.author);
  return {
    key: message.key,
    ts: message.ts,
    revision: message.revision,
    author: { id: message.author, name: authorName, app: isApp },
    ephemeral: message.visibleTo !== undefined,
    via: message.via,
    // A person's own text is shown as typed; the app's and Slackbot's is mrkdwn.
    text:
      message.via === 'command' || message.via === 'message'
        ? [{ t: 'text', text: message.text }]
        : parseMrkdwn(message.text, known),
    blocks: message.blocks.map((block) => uiBlock(block, known, {})),
  };
}

function uiView(open: OpenView, under: number, known: Known): UiView {
  const { view } = open;
  const modal = view.type === 'modal' ? view : undefined;
  return {
    id: open.id,
    revision: open.revision,
    type: view.type,
    title: modal ? plain(modal.title) : APP_NAME,
    ...(modal?.submit ? { submit: plain(modal.submit) } : {}),
    close: modal?.close ? plain(modal.close) : 'Close',
    blocks: view.blocks.map((block) => uiBlock(block, known, open.errors)),
    under,
  };
}

function uiRefusal(refusal: Refusal): UiRefusal {
  return {
    key: refusal.key,
    at: new Date(refusal.at).toISOString(),
    method: refusal.method,
    error: refusal.error,
    problems: refusal.problems,
  };
}

/** Everything `me` sees now. */
export function pageState(
  workspace: Workspace,
  { me, people }: { me: PlaygroundPerson; people: readonly PlaygroundPerson[] },
  workflows: WorkflowRuns,
): PageState {
  const known = knownIn(workspace);
  const conversation = (channel: string) =>
    workspace.conversationFor(channel, me.id).map((message) => uiMessage(message, known));
  const channels = [...workspace.channels.values()];
  const home = workspace.homeOf(me.id);
  const modal = workspace.topModal(me.id);
  return {
    version: workspace.version,
    me,
    people,
    channels: channels.map((channel) => ({ ...channel, announcements: channel.id === ANNOUNCEMENTS.id })),
    app: { name: APP_NAME },
    conversations: Object.fromEntries(channels.map((channel) => [channel.id, conversation(channel.id)])),
    direct: conversation(`D${me.id}`),
    ...(home ? { home: uiView(home, 0, known) } : {}),
    ...(modal ? { modal: uiView(modal, workspace.modalDepth(me.id) - 1, known) } : {}),
    refusals: workspace.refusalsFor(me.id).map(uiRefusal),
    welcome: { ...WELCOME, text: parseMrkdwn(WELCOME.text, known) },
    workflows: { steps: PLAYGROUND_STEPS, samples: SAMPLE_WORKFLOWS, runs: workflows.of(me.id) },
  };
}
