// Slack's rules for Block Kit: what Slack would refuse is refused here too, with a reason per problem, so that neither
// the tests nor the playground hide a bug real Slack would show. The renderer draws the parsed shapes.
import { createHash } from 'node:crypto';
import { z } from 'zod';

const tooLong = (max: number) => `must be less than ${max + 1} characters`;
const tooMany = (max: number) => `must be less than ${max + 1} items`;

/** A string Slack accepts: at least one character, at most `max`. */
const chars = (max: number) => z.string().min(1, 'must be more than 0 characters').max(max, tooLong(max));
const list = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max, tooMany(max));
const id = chars(255);
/** How many a multi-select may hold: 1 or more. */
const maxSelected = z.number().int().min(1, 'must be at least 1').optional();

export const plainText = (max: number) =>
  z.object({
    type: z.literal('plain_text', { error: 'must be plain_text' }),
    text: chars(max),
    emoji: z.boolean().optional(),
  });
const mrkdwn = (max: number) =>
  z.object({ type: z.literal('mrkdwn'), text: chars(max), verbatim: z.boolean().optional() });
const textObject = (max: number) =>
  z.discriminatedUnion('type', [plainText(max), mrkdwn(max)], { error: 'must be plain_text or mrkdwn' });

export type TextObject = z.infer<ReturnType<typeof textObject>>;

const style = z.enum(['primary', 'danger'], { error: 'must be primary or danger' });

const confirmDialog = z.object({
  title: plainText(100),
  text: textObject(300),
  confirm: plainText(30),
  deny: plainText(30),
  style: style.optional(),
});
export type ConfirmDialog = z.infer<typeof confirmDialog>;

export const option = z.object({
  text: plainText(75),
  value: chars(150),
  description: plainText(75).optional(),
  url: chars(3000).optional(),
});
export type SlackOption = z.infer<typeof option>;

const optionGroup = z.object({ label: plainText(75), options: list(option, 100) });

const button = z.object({
  type: z.literal('button'),
  text: plainText(75),
  action_id: id.optional(),
  value: chars(2000).optional(),
  url: chars(3000).optional(),
  style: style.optional(),
  confirm: confirmDialog.optional(),
  accessibility_label: chars(75).optional(),
});

/** What every select and picker has. */
const selectFields = {
  action_id: id.optional(),
  placeholder: plainText(150).optional(),
  confirm: confirmDialog.optional(),
  focus_on_load: z.boolean().optional(),
};

const staticSelect = z.object({
  type: z.literal('static_select'),
  ...selectFields,
  options: list(option, 100).optional(),
  option_groups: list(optionGroup, 100).optional(),
  initial_option: option.optional(),
});

const externalSelect = z.object({
  type: z.literal('external_select'),
  ...selectFields,
  initial_option: option.optional(),
  min_query_length: z.number().int().min(0).optional(),
});

/** A type-ahead of several choices; Voice Ops uses it only in forms, where its choices arrive with the submission. */
const multiExternalSelect = z.object({
  type: z.literal('multi_external_select'),
  ...selectFields,
  initial_options: list(option, 100).optional(),
  min_query_length: z.number().int().min(0).optional(),
  max_selected_items: maxSelected,
});

const plainTextInput = z.object({
  type: z.literal('plain_text_input'),
  action_id: id.optional(),
  placeholder: plainText(150).optional(),
  initial_value: z.string().optional(),
  multiline: z.boolean().optional(),
  min_length: z.number().int().min(0).max(3000, 'must be at most 3000').optional(),
  max_length: z.number().int().min(1).max(3000, 'must be at most 3000').optional(),
  focus_on_load: z.boolean().optional(),
});

/** People to pick, from the workspace's; `initial_users` are user ids. */
const multiUsersSelect = z.object({
  type: z.literal('multi_users_select'),
  ...selectFields,
  initial_users: z.array(id).optional(),
  max_selected_items: maxSelected,
});

/** Which conversations a conversations picker lists: at least one of its fields, `include` never empty. */
const conversationFilter = z
  .object({
    include: z
      .array(z.enum(['im', 'mpim', 'private', 'public'], { error: 'must be im, mpim, private or public' }))
      .min(1, 'must be more than 0 items')
      .optional(),
    exclude_external_shared_channels: z.boolean().optional(),
    exclude_bot_users: z.boolean().optional(),
  })
  .refine((filter) => Object.keys(filter).length > 0, {
    error: 'must have include, exclude_bot_users or exclude_external_shared_channels',
  });
export type ConversationFilter = z.infer<typeof conversationFilter>;

/** Channels (and conversations) to pick; `initial_conversations` are their ids. */
const multiConversationsSelect = z.object({
  type: z.literal('multi_conversations_select'),
  ...selectFields,
  initial_conversations: z.array(id).optional(),
  default_to_current_conversation: z.boolean().optional(),
  max_selected_items: maxSelected,
  filter: conversationFilter.optional(),
});

/** A checkbox's option: unlike a select's, its text and description may be mrkdwn. */
export const checkboxOption = z.object({
  text: textObject(75),
  value: chars(150),
  description: textObject(75).optional(),
});
export type CheckboxOption = z.infer<typeof checkboxOption>;

/** Up to 10 boxes; the ones ticked at first must be among them (the same value and text). */
const checkboxes = z
  .object({
    type: z.literal('checkboxes'),
    action_id: id.optional(),
    options: list(checkboxOption, 10).min(1, 'must be more than 0 items'),
    initial_options: list(checkboxOption, 10).optional(),
    confirm: confirmDialog.optional(),
    focus_on_load: z.boolean().optional(),
  })
  .superRefine((element, ctx) => {
    const key = (choice: CheckboxOption) => `${choice.value}\n${choice.text.text}`;
    const known = new Set(element.options.map(key));
    element.initial_options?.forEach((choice, index) => {
      if (!known.has(key(choice))) {
        ctx.addIssue({ code: 'custom', path: ['initial_options', index], message: 'must match one of the options' });
      }
    });
  });

const image = z.object({ type: z.literal('image'), image_url: chars(3000).optional(), alt_text: chars(2000) });

/** Elements Slack has that Voice Ops does not use: accepted as Slack accepts them, drawn as placeholders. */
const OTHER_ELEMENTS = [
  'overflow',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'radio_buttons',
  'users_select',
  'conversations_select',
  'channels_select',
  'multi_static_select',
  'multi_channels_select',
  'number_input',
  'email_text_input',
  'url_text_input',
  'rich_text_input',
  'file_input',
  'workflow_button',
] as const;
const otherElement = z.looseObject({ type: z.enum(OTHER_ELEMENTS), action_id: id.optional() });

const interactive = [
  button,
  staticSelect,
  externalSelect,
  multiExternalSelect,
  multiUsersSelect,
  multiConversationsSelect,
  checkboxes,
  otherElement,
] as const;
const unknownElement = { error: 'is not an element Slack allows here' };

const accessory = z.discriminatedUnion('type', [...interactive, image], unknownElement);
const actionElement = z.discriminatedUnion('type', [...interactive], unknownElement);
const inputElement = z.discriminatedUnion(
  'type',
  [
    staticSelect,
    externalSelect,
    multiExternalSelect,
    multiUsersSelect,
    multiConversationsSelect,
    checkboxes,
    plainTextInput,
    otherElement,
  ],
  { error: 'is not an input element Slack allows here' },
);
export type Element = z.infer<typeof accessory> | z.infer<typeof inputElement>;

const blockId = { block_id: id.optional() };

const section = z
  .object({
    type: z.literal('section'),
    ...blockId,
    text: textObject(3000).optional(),
    fields: list(textObject(2000), 10).optional(),
    accessory: accessory.optional(),
    expand: z.boolean().optional(),
  })
  .refine((block) => block.text !== undefined || block.fields !== undefined, {
    error: 'must have text or fields',
    path: ['text'],
  });

const header = z.object({ type: z.literal('header'), ...blockId, text: plainText(150) });
const divider = z.object({ type: z.literal('divider'), ...blockId });
const context = z.object({
  type: z.literal('context'),
  ...blockId,
  elements: list(z.discriminatedUnion('type', [plainText(3000), mrkdwn(3000), image], unknownElement), 10).min(
    1,
    'must be more than 0 items',
  ),
});
const actions = z.object({
  type: z.literal('actions'),
  ...blockId,
  elements: list(actionElement, 25).min(1, 'must be more than 0 items'),
});
const input = z.object({
  type: z.literal('input'),
  ...blockId,
  label: plainText(2000),
  element: inputElement,
  hint: plainText(2000).optional(),
  optional: z.boolean().optional(),
  dispatch_action: z.boolean().optional(),
});

/** Blocks Slack has that Voice Ops does not use: accepted, drawn as placeholders. */
const OTHER_BLOCKS = ['image', 'rich_text', 'video', 'file', 'markdown', 'call', 'table', 'rich_text_list'] as const;
const otherBlock = z.looseObject({ type: z.enum(OTHER_BLOCKS), ...blockId });

export const block = z.discriminatedUnion('type', [section, header, divider, context, actions, input, otherBlock], {
  error: 'is not a block type Slack knows',
});
export type Block = z.infer<typeof block>;

/** Inside one message or view, block_ids are unique, and so are action_ids inside one block. */
function uniqueIds(blocks: Block[], ctx: z.RefinementCtx, at: (string | number)[]): void {
  const seen = new Set<string>();
  blocks.forEach((candidate, index) => {
    if (candidate.block_id !== undefined) {
      if (seen.has(candidate.block_id)) {
        ctx.addIssue({ code: 'custom', path: [...at, index, 'block_id'], message: 'is not unique' });
      }
      seen.add(candidate.block_id);
    }
    if (candidate.type !== 'actions') return;
    const actionIds = new Set<string>();
    candidate.elements.forEach((element, elementIndex) => {
      if (element.action_id === undefined) return;
      if (actionIds.has(element.action_id)) {
        ctx.addIssue({
          code: 'custom',
          path: [...at, index, 'elements', elementIndex, 'action_id'],
          message: 'is not unique in its block',
        });
      }
      actionIds.add(element.action_id);
    });
  });
}

/** An element that can be interacted with: the ones carrying an action_id. */
export type ActionElement = Exclude<Element, { type: 'image' }>;

/** The interactive elements of a block, with where they sit: an accessory, an actions element, an input's element. */
export function elementsOf(candidate: Block): ActionElement[] {
  const found: Element[] = [];
  if (candidate.type === 'section' && candidate.accessory) found.push(candidate.accessory);
  if (candidate.type === 'actions') found.push(...candidate.elements);
  if (candidate.type === 'input') found.push(candidate.element);
  return found.filter((element): element is ActionElement => element.type !== 'image');
}

/** A short id made from `content`, the same each time it is the same; `seen` tells repeats in one list apart. */
function contentId(content: unknown, seen: Map<string, number>): string {
  const digest = createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 6);
  const repeats = seen.get(digest) ?? 0;
  seen.set(digest, repeats + 1);
  return repeats === 0 ? digest : `${digest}${repeats}`;
}

/**
 * Fills in missing block_ids and action_ids as Slack does, made from the content, so that a view published again
 * unchanged keeps them and a click on it as drawn a moment before still finds its element.
 */
export function withSlackIds(blocks: Block[]): Block[] {
  const blockIds = new Map<string, number>();
  return blocks.map((given) => {
    const filled: Block = given.block_id === undefined ? { ...given, block_id: contentId(given, blockIds) } : given;
    const actionIds = new Map<string, number>();
    const withAction = <T extends { action_id?: string }>(element: T): T =>
      'action_id' in element && element.action_id !== undefined
        ? element
        : { ...element, action_id: contentId(element, actionIds) };
    if (filled.type === 'section' && filled.accessory && filled.accessory.type !== 'image') {
      return { ...filled, accessory: withAction(filled.accessory) };
    }
    if (filled.type === 'actions') return { ...filled, elements: filled.elements.map(withAction) };
    if (filled.type === 'input') return { ...filled, element: withAction(filled.element) };
    return filled;
  });
}

const MESSAGE_BLOCKS = 50;
const VIEW_BLOCKS = 100;

/** chat.postMessage, chat.postEphemeral, chat.update and response_url bodies: text, blocks, or both. */
export const messageBody = z
  .looseObject({
    text: z.string().max(40_000, tooLong(40_000)).optional(),
    blocks: list(block, MESSAGE_BLOCKS).optional(),
    attachments: z.array(z.unknown()).optional(),
  })
  .superRefine((message, ctx) => {
    if (message.blocks) uniqueIds(message.blocks, ctx, ['blocks']);
  });
export type MessageBody = z.infer<typeof messageBody>;

const viewFields = {
  blocks: list(block, VIEW_BLOCKS),
  private_metadata: z.string().max(3000, tooLong(3000)).optional(),
  callback_id: z.string().max(255, tooLong(255)).optional(),
  external_id: z.string().max(255, tooLong(255)).optional(),
};

const modal = z.object({
  type: z.literal('modal'),
  title: plainText(24),
  close: plainText(24).optional(),
  submit: plainText(24).optional(),
  clear_on_close: z.boolean().optional(),
  notify_on_close: z.boolean().optional(),
  submit_disabled: z.boolean().optional(),
  ...viewFields,
});
const home = z.object({ type: z.literal('home'), ...viewFields });

export const view = z
  .discriminatedUnion('type', [modal, home], { error: 'must be modal or home' })
  .superRefine((candidate, ctx) => {
    uniqueIds(candidate.blocks, ctx, ['blocks']);
    const hasInputs = candidate.blocks.some((candidateBlock) => candidateBlock.type === 'input');
    if (candidate.type === 'modal' && hasInputs && candidate.submit === undefined) {
      ctx.addIssue({ code: 'custom', path: ['submit'], message: 'is required when the view has input blocks' });
    }
  });
export type View = z.infer<typeof view>;
export type ModalView = Extract<View, { type: 'modal' }>;

/** What an app answers to a block_suggestion: options or option groups for a type-ahead select. */
export const optionsAnswer = z.union([
  z.object({ options: list(option, 100) }),
  z.object({ option_groups: list(optionGroup, 100) }),
]);

export type Checked<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/** Parses against one of the schemas above; problems read as Slack's: `reason [json-pointer:/blocks/0/text]`. */
export function check<T>(schema: z.ZodType<T>, value: unknown, pointerPrefix = ''): Checked<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const pointer = `${pointerPrefix}/${issue.path.map(String).join('/')}`.replace(/\/$/, '') || '/';
    const missing = issue.code === 'invalid_type' && issue.input === undefined;
    return `${missing ? 'is required' : issue.message} [json-pointer:${pointer}]`;
  });
  return { ok: false, problems };
}

/** Slack's answer to a call it refuses for its blocks or view: the code, and each problem as `[ERROR] …`. */
export function refusal(error: string, problems: string[]): Record<string, unknown> {
  return { ok: false, error, errors: problems, response_metadata: { messages: problems.map((p) => `[ERROR] ${p}`) } };
}
