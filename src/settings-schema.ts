// Who may do what, the guardrails and the channels: plain data, kept in the store and changed by admins in Slack,
// seeded (and, where given, locked) by the environment or a policy file. The one schema every source is read with.
import { z } from 'zod';

/** The changes that may be made to wait for a second person's approval. */
export const APPROVABLE_ACTIONS = [
  'number.buy',
  'number.release',
  'agent.delete',
  'routing.map',
  'settings.change',
] as const;

const BUY_LIMIT_TEXT = /^(\d{1,6})\s*\/\s*(day|week)$/i;

/** At most `count` numbers bought per UTC day or per ISO week (Monday to Sunday, UTC). */
export const buyLimitSchema = z.object({
  count: z.number().int().min(0).max(999_999),
  window: z.enum(['day', 'week']),
});
export type BuyLimit = z.infer<typeof buyLimitSchema>;

/** `5/day` or `20/week`, as the environment and the policy file write a buy limit. */
export function parseBuyLimit(text: string): BuyLimit | undefined {
  const match = BUY_LIMIT_TEXT.exec(text.trim());
  if (!match) return undefined;
  return { count: Number(match[1]), window: match[2]?.toLowerCase() === 'week' ? 'week' : 'day' };
}

export const buyLimitText = (limit: BuyLimit): string => `${limit.count}/${limit.window}`;

/** A Slack user (`U…`, `W…`) or user group (`S…`). */
export const memberId = z.string().regex(/^[UWS][A-Z0-9]{2,}$/, 'is not a Slack user or user-group id');
export const channelId = z.string().regex(/^[CG][A-Z0-9]{2,}$/, 'is not a channel id (C… or G…)');
/** A Slack user group (`S…`): a team that owns numbers and agents. */
export const groupId = z.string().regex(/^S[A-Z0-9]{2,}$/, 'is not a user-group id (S…)');
/** A label on a number or an agent, as typed and kept: lowercase letters, digits and `:._/-`, up to 50. */
export const labelSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9:._/-]{0,49}$/, 'is not a label (lowercase letters, digits and : . _ / -, up to 50)');

/** A team as written: a user group's mention (`<!subteam^S…|@name>`, as Slack sends it) or its bare id `S…`. */
export function teamWritten(word: string): string | undefined {
  const id = /^<!subteam\^([^|>]+)(?:\|[^>]*)?>$/.exec(word)?.[1] ?? word;
  return groupId.safeParse(id).success ? id : undefined;
}

/** What a form says of a word that is not a label. */
export const notALabel = (typed: string): string =>
  `“${typed}” is not a label: lowercase letters, digits and : . _ / -, up to 50.`;

/** Labels typed in one field, split at spaces and commas, lowercased, each once; or the first that is not a label. */
export function labelsTyped(text: string): { labels: string[] } | { wrong: string } {
  const labels = [
    ...new Set(
      text
        .toLowerCase()
        .split(/[\s,]+/)
        .filter(Boolean),
    ),
  ];
  const wrong = labels.find((label) => !labelSchema.safeParse(label).success);
  return wrong === undefined ? { labels } : { wrong };
}
const hours = (min: number) => z.number().int().min(min).max(720);

/**
 * A channel bound to a team or a label filter: there, lists, pickers and exports show only what it covers, changes
 * reach only that, and numbers bought and agents created there get its owner and labels.
 */
export const channelBindingSchema = z
  .object({ channel: channelId, owner: groupId.optional(), labels: z.array(labelSchema).optional() })
  .refine((binding) => binding.owner !== undefined || (binding.labels?.length ?? 0) > 0, 'binds to no team or label');
export type ChannelBinding = z.infer<typeof channelBindingSchema>;

/** The kinds of change a subscription may choose, as `/voice subscribe` names them. */
export const SUBSCRIBABLE = ['buy', 'release', 'route', 'agent', 'labels', 'settings', 'outside'] as const;

/**
 * What is announced in a channel: changes of the kinds chosen (none: every kind) whose number or agent has all of
 * `labels`, none of `without`, and one of `owners` (none: any); quiet posts one digest a day instead of each change.
 */
export const subscriptionSchema = z.object({
  channel: channelId,
  kinds: z.array(z.enum(SUBSCRIBABLE)),
  labels: z.array(labelSchema),
  without: z.array(labelSchema),
  owners: z.array(groupId),
  quiet: z.boolean(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

export const settingsSchema = z.object({
  /** Who holds the admin role: user ids, and user groups whose members do. */
  admins: z.array(memberId),
  /** Who holds the operator role. */
  operators: z.array(memberId),
  /** Who may approve a change that waits for a second person; empty: anyone with the role the change needs. */
  approvers: z.array(memberId),
  /** Changes that, once confirmed, wait for another person's approval. */
  requireApproval: z.array(z.enum(APPROVABLE_ACTIONS)),
  /** A request not decided within this time ends. */
  approvalTtlHours: hours(1),
  /** Buys for the whole workspace. */
  buyLimit: buyLimitSchema.optional(),
  /** Buys by each person. */
  buyLimitPerUser: buyLimitSchema.optional(),
  /** The channels where changes are accepted; empty means anywhere. */
  changeChannels: z.array(channelId),
  /** Releasing a number that routes to an agent asks for its last four digits, typed. */
  typedRelease: z.boolean(),
  /** How long after a change its Undo is offered (0: never). */
  undoHours: hours(0),
  /** Where changes are announced. */
  announcementsChannel: channelId.optional(),
  /** Where requests for approval are posted; else the announcements channel. */
  approvalsChannel: channelId.optional(),
  /** Channels bound to a team or labels; a channel is bound once. */
  channelBindings: z.array(channelBindingSchema).superRefine((bindings, ctx) => {
    const twice = bindings.find((binding, index) => bindings.findIndex((b) => b.channel === binding.channel) < index);
    if (twice)
      ctx.addIssue({ code: 'custom', message: `binds the channel ${twice.channel} twice: a channel is bound once` });
  }),
  /** Channels that get the changes a filter picks, beside the announcements channel; one per channel. */
  subscriptions: z
    .array(subscriptionSchema)
    .refine(
      (list) => new Set(list.map((subscription) => subscription.channel)).size === list.length,
      'has a channel twice',
    ),
});
export type Settings = z.infer<typeof settingsSchema>;
export type SettingName = keyof Settings;
export const SETTING_NAMES = settingsSchema.keyof().options;

/** What is in force where nothing says otherwise. */
export const DEFAULT_SETTINGS: Settings = {
  admins: [],
  operators: [],
  approvers: [],
  requireApproval: [],
  approvalTtlHours: 24,
  changeChannels: [],
  typedRelease: false,
  undoHours: 24,
  channelBindings: [],
  subscriptions: [],
};

/** The environment variable that gives each setting. */
export const SETTING_VARIABLES = {
  admins: 'VOICE_ADMINS',
  operators: 'VOICE_OPERATORS',
  approvers: 'VOICE_APPROVERS',
  requireApproval: 'VOICE_REQUIRE_APPROVAL',
  approvalTtlHours: 'VOICE_APPROVAL_TTL_HOURS',
  buyLimit: 'VOICE_BUY_LIMIT',
  buyLimitPerUser: 'VOICE_BUY_LIMIT_PER_USER',
  changeChannels: 'VOICE_CHANGE_CHANNELS',
  typedRelease: 'VOICE_TYPED_RELEASE',
  undoHours: 'VOICE_UNDO_HOURS',
  announcementsChannel: 'NOTIFY_CHANNEL_ID',
  approvalsChannel: 'VOICE_APPROVALS_CHANNEL_ID',
  channelBindings: 'VOICE_CHANNEL_BINDINGS',
  subscriptions: 'VOICE_SUBSCRIPTIONS',
} as const satisfies Record<SettingName, string>;

/** Where a locked setting is given: its key (`VOICE_BUY_LIMIT`, `buyLimit`) in a source (`the environment`). */
export interface Lock {
  key: string;
  where: string;
}

/** `locked` cannot be changed in Slack; `seed` fill what the store does not hold yet, and may be changed after. */
export interface GivenSettings {
  locked: Partial<Settings>;
  lockedBy: Partial<Record<SettingName, Lock>>;
  seed: Partial<Settings>;
}

/** Stored values over the defaults; a value this code cannot read is left out (its default holds), and `unreadable` told. */
export function storedSettings(
  values: ReadonlyMap<string, unknown>,
  unreadable: (name: SettingName) => void = () => {},
): Settings {
  const settings: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const name of SETTING_NAMES) {
    if (!values.has(name)) continue;
    const parsed = settingsSchema.shape[name].safeParse(values.get(name));
    if (parsed.success) settings[name] = parsed.data;
    else unreadable(name);
  }
  return settingsSchema.parse(settings);
}

/** Where requests for approval are asked: the approvals channel, else the announcements channel. */
export const approvalsChannelOf = (settings: Settings): string | undefined =>
  settings.approvalsChannel ?? settings.announcementsChannel;
