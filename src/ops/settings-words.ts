// What a change of the settings does, as a person reads it before confirming: who gains or loses which role, what a
// policy now allows, where things are now posted. Plain phrases; the Slack layer draws the people and channels.
import { z } from 'zod';
import { counted } from '../counts.js';
import {
  type BuyLimit,
  buyLimitSchema,
  type ChannelBinding,
  channelBindingSchema,
  SETTING_NAMES,
  type Subscription,
  subscriptionSchema,
} from '../settings-schema.js';
import { scopeWords } from './binding-words.js';
import type { Phrase } from './phrase.js';

/** One setting as it was and as it is to be; null: not set. */
export const settingChange = z.object({ name: z.enum(SETTING_NAMES), before: z.unknown(), after: z.unknown() });
export type SettingChange = z.infer<typeof settingChange>;

const ROLE_WORDS = {
  admins: { one: 'an admin', many: 'admins' },
  operators: { one: 'an operator', many: 'operators' },
  approvers: { one: 'an approver', many: 'approvers' },
} as const;

// A change's values read in their setting's shape; null (not set), or a value of another shape, reads as unset.
const ids = (value: unknown): string[] =>
  z
    .array(z.string())
    .catch([])
    .parse(value ?? []);
const hoursOf = (value: unknown): number | undefined =>
  z
    .number()
    .optional()
    .catch(undefined)
    .parse(value ?? undefined);
const limitOf = (value: unknown): BuyLimit | undefined =>
  buyLimitSchema
    .optional()
    .catch(undefined)
    .parse(value ?? undefined);
const channelOf = (value: unknown): string | undefined =>
  z
    .string()
    .optional()
    .catch(undefined)
    .parse(value ?? undefined);
const bindingsOf = (value: unknown): ChannelBinding[] =>
  z
    .array(channelBindingSchema)
    .catch([])
    .parse(value ?? []);
const subscriptionsOf = (value: unknown): Subscription[] =>
  z
    .array(subscriptionSchema)
    .catch([])
    .parse(value ?? []);
const channels = (list: readonly string[]): Phrase =>
  list.flatMap((channel, index) => [...(index ? [', '] : []), { channel }]);

function roleLines(name: keyof typeof ROLE_WORDS, change: SettingChange): Phrase[] {
  const [before, after] = [ids(change.before), ids(change.after)];
  const words = ROLE_WORDS[name];
  const gains = after.filter((id) => !before.includes(id));
  const losses = before.filter((id) => !after.includes(id));
  return [
    ...gains.map(
      (member): Phrase =>
        member.startsWith('S')
          ? ['Members of ', { member }, ` become ${words.many}`]
          : [{ member }, ` becomes ${words.one}`],
    ),
    ...losses.map(
      (member): Phrase =>
        member.startsWith('S')
          ? ['Members of ', { member }, ` are no longer ${words.many} through it`]
          : [{ member }, ` is no longer ${words.one}`],
    ),
  ];
}

const limitWords = (limit: BuyLimit | undefined): string =>
  limit ? `${counted(limit.count, 'number')} a ${limit.window}` : 'no limit';

const hoursWords = (hours: number | undefined): string => (hours ? counted(hours, 'hour') : 'never');

function channelLine(what: string, before: string | undefined, after: string | undefined, none: string): Phrase {
  const now: Phrase = after ? [{ channel: after }] : [none];
  const was: Phrase = before ? [{ channel: before }] : [none];
  return [`${what}: `, ...now, ' (was ', ...was, ')'];
}

/** "#sales now shows only @sales-team's (was everything)", a line for each channel whose binding changed. */
function bindingLines(change: SettingChange): Phrase[] {
  const [before, after] = [bindingsOf(change.before), bindingsOf(change.after)];
  const shown = (binding: ChannelBinding | undefined): Phrase =>
    binding ? ['only ', ...scopeWords(binding)] : ['everything'];
  const channelsNamed = [...new Set([...before, ...after].map((binding) => binding.channel))];
  return channelsNamed.flatMap((channel): Phrase[] => {
    const [was, now] = [before, after].map((list) => list.find((binding) => binding.channel === channel));
    if (JSON.stringify(was) === JSON.stringify(now)) return [];
    return [[{ channel }, ' now shows ', ...shown(now), ' (was ', ...shown(was), ')']];
  });
}

const listed = (words: readonly string[], mention: (word: string) => Phrase): Phrase =>
  words.flatMap((word, index) => [...(index ? [', '] : []), ...mention(word)]);

/** "route and buy changes of what is labelled team:sales, not test, owned by @sales; quiet: a digest a day". */
export function subscriptionWords(subscription: Subscription): Phrase {
  const { kinds, labels, without, owners, quiet } = subscription;
  const what: Phrase = kinds.length ? [kinds.join(', '), ' changes'] : ['every change'];
  const filters: Phrase[] = [
    ...(labels.length ? [['labelled ', ...listed(labels, (code) => [{ code }])]] : []),
    ...(without.length ? [['not ', ...listed(without, (code) => [{ code }])]] : []),
    ...(owners.length ? [['owned by ', ...listed(owners, (member) => [{ member }])]] : []),
  ];
  const of: Phrase = filters.length ? [' of what is ', ...filters.flatMap((f, i) => [...(i ? [', '] : []), ...f])] : [];
  return [...what, ...of, ...(quiet ? ['; quiet: one digest a day'] : [])];
}

function subscriptionLines(change: SettingChange): Phrase[] {
  const [before, after] = [subscriptionsOf(change.before), subscriptionsOf(change.after)];
  const same = (a: Subscription, b: Subscription) => JSON.stringify(a) === JSON.stringify(b);
  return [
    ...after.flatMap((now): Phrase[] => {
      const was = before.find((old) => old.channel === now.channel);
      if (was && same(was, now)) return [];
      const then: Phrase = was ? [' (was ', ...subscriptionWords(was), ')'] : [];
      return [[{ channel: now.channel }, ' gets ', ...subscriptionWords(now), ...then]];
    }),
    ...before
      .filter((old) => !after.some((now) => now.channel === old.channel))
      .map(
        (old): Phrase => [{ channel: old.channel }, ' is no longer subscribed (was ', ...subscriptionWords(old), ')'],
      ),
  ];
}

/** The lines that say what one setting's change does. */
export function effectLines(change: SettingChange): Phrase[] {
  const { name } = change;
  switch (name) {
    case 'admins':
    case 'operators':
    case 'approvers':
      return roleLines(name, change);
    case 'requireApproval': {
      const [before, after] = [ids(change.before), ids(change.after)];
      return [
        ...after
          .filter((action) => !before.includes(action))
          .map((action): Phrase => [{ code: action }, ' needs a second approver']),
        ...before
          .filter((action) => !after.includes(action))
          .map((action): Phrase => [{ code: action }, ' no longer needs a second approver']),
      ];
    }
    case 'approvalTtlHours':
      return [
        [
          `Requests for approval expire after ${hoursWords(hoursOf(change.after))} (was ${hoursWords(hoursOf(change.before))})`,
        ],
      ];
    case 'buyLimit':
      return [
        [`The workspace may buy ${limitWords(limitOf(change.after))} (was ${limitWords(limitOf(change.before))})`],
      ];
    case 'buyLimitPerUser':
      return [[`Each person may buy ${limitWords(limitOf(change.after))} (was ${limitWords(limitOf(change.before))})`]];
    case 'changeChannels': {
      const [before, after] = [ids(change.before), ids(change.after)];
      const now: Phrase = after.length ? ['only in ', ...channels(after)] : ['in any channel'];
      const was: Phrase = before.length ? ['only in ', ...channels(before)] : ['in any channel'];
      return [['Changes are made ', ...now, ' (was ', ...was, ')']];
    }
    case 'typedRelease':
      return [
        change.after === true
          ? ['Releasing a routed number asks for its last four digits, typed']
          : ['Releasing a routed number no longer asks for its last four digits'],
      ];
    case 'undoHours':
      return [
        [
          `Undo is offered for ${hoursWords(hoursOf(change.after))} after a change (was ${hoursWords(hoursOf(change.before))})`,
        ],
      ];
    case 'announcementsChannel':
      return [channelLine('Changes are announced in', channelOf(change.before), channelOf(change.after), 'no channel')];
    case 'channelBindings':
      return bindingLines(change);
    case 'approvalsChannel':
      return [
        channelLine(
          'Requests for approval are posted in',
          channelOf(change.before),
          channelOf(change.after),
          'the announcements channel',
        ),
      ];
    case 'subscriptions':
      return subscriptionLines(change);
  }
}

/** Every line a change of several settings says, one a line. */
export function effectsOf(changes: readonly SettingChange[]): Phrase {
  return changes
    .flatMap(effectLines)
    .flatMap((line, index): Phrase => [...(index ? [{ newLine: true } as const] : []), '• ', ...line]);
}

/** Whether the change takes a role from anyone: its confirmation is then drawn as destructive. */
export const takesARole = (changes: readonly SettingChange[]): boolean =>
  changes.some(({ name, before, after }) => name in ROLE_WORDS && ids(before).some((id) => !ids(after).includes(id)));
