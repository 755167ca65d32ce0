// Block Kit builders shared by every view, so that Slack's limits are enforced in one place. `section` and `context`
// take mrkdwn the caller has escaped, sent verbatim; plain_text fields are never parsed, so they take raw text.
import type {
  ActionsBlock,
  ActionsBlockElement,
  Button,
  ColorScheme,
  ContextBlock,
  DividerBlock,
  ExternalSelect,
  HeaderBlock,
  KnownBlock,
  ModalView,
  MrkdwnElement,
  PlainTextElement,
  PlainTextOption,
  SectionBlock,
  SectionBlockAccessory,
  StaticSelect,
} from '@slack/types';
import { truncate } from '../mrkdwn.js';

/** A message for chat.postMessage, chat.postEphemeral or a response_url; `text` is the escaped fallback. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}

export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  sectionText: 3000,
  contextText: 2000,
  headerText: 150,
  buttonText: 75,
  optionText: 75,
  selectOptions: 100,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
} as const;

export function plainText(text: string, max: number = LIMITS.sectionText): PlainTextElement {
  return { type: 'plain_text', text: truncate(text, max), emoji: true };
}

function mrkdwnText(mrkdwn: string, max: number): MrkdwnElement {
  return { type: 'mrkdwn', text: truncate(mrkdwn, max), verbatim: true };
}

export function section(mrkdwn: string, accessory?: SectionBlockAccessory): SectionBlock {
  const block: SectionBlock = { type: 'section', text: mrkdwnText(mrkdwn, LIMITS.sectionText) };
  return accessory ? { ...block, accessory } : block;
}

export function context(mrkdwn: string): ContextBlock {
  return { type: 'context', elements: [mrkdwnText(mrkdwn, LIMITS.contextText)] };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plainText(text, LIMITS.headerText) };
}

export function divider(): DividerBlock {
  return { type: 'divider' };
}

export function actions(elements: ActionsBlockElement[], blockId?: string): ActionsBlock {
  return blockId ? { type: 'actions', block_id: blockId, elements } : { type: 'actions', elements };
}

export function button(input: { text: string; actionId: string; value?: string; style?: ColorScheme }): Button {
  return {
    type: 'button',
    text: plainText(input.text, LIMITS.buttonText),
    action_id: input.actionId,
    ...(input.value === undefined ? {} : { value: input.value }),
    ...(input.style ? { style: input.style } : {}),
  };
}

export function option(text: string, value: string): PlainTextOption {
  return { text: plainText(text, LIMITS.optionText), value };
}

/** A type-ahead select whose options the app's options listener answers; it lists some before anything is typed. */
export function externalSelect(input: {
  actionId: string;
  placeholder: string;
  initialOption?: PlainTextOption;
}): ExternalSelect {
  return {
    type: 'external_select',
    action_id: input.actionId,
    placeholder: plainText(input.placeholder, LIMITS.optionText),
    min_query_length: 0,
    ...(input.initialOption ? { initial_option: input.initialOption } : {}),
  };
}

/** A static select whose initial option, when given, is one of its own options (Slack rejects any other). */
export function staticSelect(input: {
  actionId: string;
  placeholder: string;
  options: PlainTextOption[];
  initialValue?: string;
}): StaticSelect {
  const options = input.options.slice(0, LIMITS.selectOptions);
  const initial = options.find((candidate) => candidate.value === input.initialValue);
  return {
    type: 'static_select',
    action_id: input.actionId,
    placeholder: plainText(input.placeholder, LIMITS.optionText),
    options,
    ...(initial ? { initial_option: initial } : {}),
  };
}

export function message(text: string, blocks: KnownBlock[]): SlackMessage {
  return { text: truncate(text, LIMITS.sectionText), blocks };
}

/** One message showing `first`, then `then`: its fallback text is the first's. */
export function followedBy(first: SlackMessage, then: SlackMessage): SlackMessage {
  return message(first.text, [...first.blocks, ...then.blocks].slice(0, LIMITS.messageBlocks));
}

/** A one-line message: its fallback text and its only section are the same escaped mrkdwn. */
export function textMessage(mrkdwn: string): SlackMessage {
  return message(mrkdwn, [section(mrkdwn)]);
}

export function modal(input: {
  title: string;
  callbackId: string;
  blocks: KnownBlock[];
  close: string;
  submit?: string;
  privateMetadata?: string;
  notifyOnClose?: boolean;
}): ModalView {
  // Cut short, the metadata would silently point the submission at something else: refuse instead.
  if (input.privateMetadata && input.privateMetadata.length > LIMITS.privateMetadata) {
    throw new RangeError(`private_metadata is ${input.privateMetadata.length} characters; Slack allows 3000`);
  }
  return {
    type: 'modal',
    callback_id: input.callbackId,
    title: plainText(input.title, LIMITS.modalTitle),
    close: plainText(input.close, LIMITS.modalButton),
    ...(input.submit ? { submit: plainText(input.submit, LIMITS.modalButton) } : {}),
    ...(input.privateMetadata ? { private_metadata: input.privateMetadata } : {}),
    ...(input.notifyOnClose ? { notify_on_close: true } : {}),
    blocks: input.blocks,
  };
}

/** The first `max` items, and how many were left out: lists are capped to stay within Slack's block limits. */
export function capped<T>(items: T[], max: number): { shown: T[]; hidden: number } {
  return { shown: items.slice(0, max), hidden: Math.max(0, items.length - max) };
}

/** Joins lines into as few texts as fit `max` (a section's limit), never splitting a line that fits one. */
export function packLines(lines: string[], max: number = LIMITS.sectionText): string[] {
  const packed: string[] = [];
  for (const line of lines) {
    const last = packed.at(-1);
    if (last !== undefined && last.length + 1 + line.length <= max) packed[packed.length - 1] = `${last}\n${line}`;
    else packed.push(line.slice(0, max));
  }
  return packed;
}
