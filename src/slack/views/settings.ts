// The settings in Slack: what is in force, in three groups (roles, policies, channels), each a form an admin opens to
// change it. A setting the configuration locks is shown with where it is given, and its form has no input for it.
import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { counted } from '../../counts.js';

import { confirmWordsOf, type SettingsView, scopeWords, subscriptionWords } from '../../ops/api.js';

import {
  APPROVABLE_ACTIONS,
  type BuyLimit,
  type ChannelBinding,
  type Lock,
  type SettingName,
  type Settings,
  type Subscription,
} from '../../settings-schema.js';
import { CALLBACK, SETTINGS } from '../ids.js';
import { code, escapeMrkdwn, mentionChannel, mentionMember } from '../mrkdwn.js';
import {
  actions,
  button,
  context,
  header,
  message,
  modal,
  option,
  plainText,
  type SlackMessage,
  section,
  staticSelect,
} from './blocks.js';
import { mrkdwnOf } from './phrase.js';

export const SETTINGS_GROUPS = ['roles', 'policies', 'channels'] as const;
export type SettingsGroup = (typeof SETTINGS_GROUPS)[number];

/** Each group's settings, in the order they are shown, with the label a person reads. */
const GROUPS: Record<SettingsGroup, { title: string; settings: readonly (readonly [SettingName, string])[] }> = {
  roles: {
    title: 'Roles',
    settings: [
      ['admins', 'Admins'],
      ['operators', 'Operators'],
      ['approvers', 'Approvers'],
    ],
  },
  policies: {
    title: 'Policies',
    settings: [
      ['requireApproval', 'Second approver for'],
      ['approvalTtlHours', 'Approval requests expire after'],
      ['buyLimit', 'Workspace buy limit'],
      ['buyLimitPerUser', 'Buy limit per person'],
      ['changeChannels', 'Changes only in'],
      ['typedRelease', 'Typed release'],
      ['undoHours', 'Undo offered for'],
    ],
  },
  channels: {
    title: 'Channels',
    settings: [
      ['announcementsChannel', 'Announcements'],
      ['approvalsChannel', 'Approval requests'],
      ['channelBindings', 'Bound channels'],
      ['subscriptions', 'Subscriptions'],
    ],
  },
};

const ROLE_HINTS: Partial<Record<SettingName, string>> = {
  admins: 'Everything, the settings included.',
  operators: 'Buy numbers, create agents, route numbers.',
  approvers:
    'Approve changes that wait for a second person (with the role the change needs). Nobody listed: anyone with that role.',
};

const members = (ids: readonly string[], none: string): string =>
  ids.length ? ids.map(mentionMember).join(', ') : none;
const limitText = (limit: BuyLimit | undefined): string =>
  limit ? `${counted(limit.count, 'number')} a ${limit.window}` : 'none';
const hoursText = (hours: number): string => (hours ? counted(hours, 'hour') : 'off');
const gerund = (action: string): string => confirmWordsOf(action).gerund;

function valueText(name: SettingName, settings: Settings): string {
  switch (name) {
    case 'admins':
    case 'operators':
      return members(settings[name], 'nobody');
    case 'approvers':
      return members(settings.approvers, 'anyone with the role a change needs');
    case 'requireApproval':
      return settings.requireApproval.length ? settings.requireApproval.map(gerund).join(', ') : 'nothing';
    case 'approvalTtlHours':
      return counted(settings.approvalTtlHours, 'hour');
    case 'buyLimit':
    case 'buyLimitPerUser':
      return limitText(settings[name]);
    case 'changeChannels':
      return settings.changeChannels.length ? settings.changeChannels.map(mentionChannel).join(', ') : 'any channel';
    case 'typedRelease':
      return settings.typedRelease ? 'the last four digits of a routed number' : 'off';
    case 'undoHours':
      return hoursText(settings.undoHours);
    case 'announcementsChannel':
    case 'approvalsChannel': {
      const channel = settings[name];
      return channel ? mentionChannel(channel) : name === 'approvalsChannel' ? 'the announcements channel' : 'none';
    }
    case 'channelBindings':
      return settings.channelBindings.length ? settings.channelBindings.map(bindingText).join('; ') : 'none';
    case 'subscriptions':
      return settings.subscriptions.length
        ? settings.subscriptions.map(subscribedLine).join('; ')
        : 'none (`/voice subscribe` in a channel)';
  }
}

/** "#sales: @sales-team's", one per bound channel. */
const bindingText = (binding: ChannelBinding): string =>
  `${mentionChannel(binding.channel)}: ${mrkdwnOf(scopeWords(binding))}`;

/** "#sales-ops: route changes of what is labelled team:sales": a subscription on one line. */
export const subscribedLine = (subscription: Subscription) =>
  mrkdwnOf([{ channel: subscription.channel }, ': ', ...subscriptionWords(subscription)]);

const lockNote = (lock: Lock): string => ` :lock: ${code(lock.key)} in ${escapeMrkdwn(lock.where)}`;

function groupLines(group: SettingsGroup, view: SettingsView): string {
  const { title, settings } = GROUPS[group];
  const lines = settings.map(([name, label]) => {
    const lock = view.locks[name];
    return `• ${label}: ${valueText(name, view.settings)}${lock ? lockNote(lock) : ''}`;
  });
  return [`*${title}*`, ...lines].join('\n');
}

/** The settings in one section, with the three Change buttons for an admin: the Home tab's Settings. */
export function settingsSummary(view: SettingsView, mayChange: boolean): KnownBlock[] {
  const lines = SETTINGS_GROUPS.map((group) => groupLines(group, view)).join('\n');
  return [section(lines), ...(mayChange ? [actions(SETTINGS_GROUPS.map(changeButton))] : [])];
}

const changeButton = (group: SettingsGroup) =>
  button({ text: `Change ${GROUPS[group].title.toLowerCase()}`, actionId: SETTINGS.open[group] });

/** `/voice settings`, which only admins are answered: the settings in force, group by group, each with its Change. */
export function settingsMessage(view: SettingsView): SlackMessage {
  const groups = SETTINGS_GROUPS.flatMap((group) => [section(groupLines(group, view)), actions([changeButton(group)])]);
  const how =
    'Each change is shown before it applies, confirmed, audited with before and after, and announced. ' +
    ':lock: marks a setting given by whoever runs Voice Ops: it is changed there.';
  return message('Voice Ops settings', [header('Settings'), ...groups, context(how)]);
}

type Input = KnownBlock & { type: 'input' };

const input = (blockId: string, label: string, element: Input['element'], hint?: string): Input => ({
  type: 'input',
  block_id: blockId,
  label: plainText(label, 2000),
  optional: true,
  element,
  ...(hint ? { hint: plainText(hint, 2000) } : {}),
});

const textInput = (blockId: string, label: string, value: string, hint: string): Input =>
  input(blockId, label, { type: 'plain_text_input', action_id: SETTINGS.value, initial_value: value }, hint);

/** A user group as a picker option: its name where Slack gave one. */
export const groupOption = (id: string, names: ReadonlyMap<string, string>): PlainTextOption =>
  option(names.get(id) ?? id, id);

function roleInputs(
  name: 'admins' | 'operators' | 'approvers',
  label: string,
  settings: Settings,
  names: ReadonlyMap<string, string>,
): KnownBlock[] {
  const ids = settings[name];
  const people = ids.filter((id) => !id.startsWith('S'));
  const groups = ids.filter((id) => id.startsWith('S'));
  return [
    input(
      SETTINGS.block(name, 'people'),
      `${label}: people`,
      {
        type: 'multi_users_select',
        action_id: SETTINGS.value,
        ...(people.length ? { initial_users: people } : {}),
      },
      ROLE_HINTS[name],
    ),
    input(SETTINGS.block(name, 'groups'), `${label}: user groups`, {
      type: 'multi_external_select',
      action_id: SETTINGS.groupPick,
      min_query_length: 0,
      placeholder: plainText('Type a group’s name', 150),
      ...(groups.length ? { initial_options: groups.map((id) => groupOption(id, names)) } : {}),
    }),
  ];
}

const WINDOWS = [option('a day', 'day'), option('a week', 'week')];

function limitInputs(name: 'buyLimit' | 'buyLimitPerUser', label: string, limit: BuyLimit | undefined): KnownBlock[] {
  return [
    textInput(SETTINGS.block(name, 'count'), `${label}: numbers`, limit ? String(limit.count) : '', 'Empty: no limit.'),
    input(
      SETTINGS.block(name, 'window'),
      `${label}: per`,
      staticSelect({
        actionId: SETTINGS.value,
        placeholder: 'a day or a week',
        options: WINDOWS,
        initialValue: limit?.window ?? 'day',
      }),
    ),
  ];
}

const checkbox = (text: string, value: string): PlainTextOption => option(text, value);

/** A picker of the workspace's channels (no direct messages), at most `max` of them when given. */
function channelsInput(name: SettingName, label: string, channels: readonly string[], hint: string, max?: number) {
  return input(
    SETTINGS.block(name),
    label,
    {
      type: 'multi_conversations_select',
      action_id: SETTINGS.value,
      ...(max ? { max_selected_items: max } : {}),
      filter: { include: ['public', 'private'], exclude_bot_users: true },
      ...(channels.length ? { initial_conversations: [...channels] } : {}),
    },
    hint,
  );
}

function policyInputs(name: SettingName, label: string, settings: Settings): KnownBlock[] {
  switch (name) {
    case 'requireApproval': {
      const options = APPROVABLE_ACTIONS.map((action) => checkbox(gerund(action), action));
      const chosen = options.filter((choice) => settings.requireApproval.some((action) => action === choice.value));
      return [
        input(SETTINGS.block(name), label, {
          type: 'checkboxes',
          action_id: SETTINGS.value,
          options,
          ...(chosen.length ? { initial_options: chosen } : {}),
        }),
      ];
    }
    case 'approvalTtlHours':
      return [textInput(SETTINGS.block(name), `${label} (hours)`, String(settings.approvalTtlHours), '1 to 720.')];
    case 'buyLimit':
    case 'buyLimitPerUser':
      return limitInputs(name, label, settings[name]);
    case 'changeChannels':
      return [channelsInput(name, label, settings.changeChannels, 'None: changes are made in any channel.')];
    case 'typedRelease': {
      const on = checkbox('Releasing a routed number asks for its last four digits', 'on');
      return [
        input(SETTINGS.block(name), label, {
          type: 'checkboxes',
          action_id: SETTINGS.value,
          options: [on],
          ...(settings.typedRelease ? { initial_options: [on] } : {}),
        }),
      ];
    }
    case 'undoHours':
      return [textInput(SETTINGS.block(name), `${label} (hours)`, String(settings.undoHours), '0 (off) to 720.')];
    case 'announcementsChannel':
    case 'approvalsChannel': {
      const channel = settings[name];
      const none =
        name === 'approvalsChannel'
          ? 'None: requests go to the announcements channel.'
          : 'None: changes are not announced.';
      // A multi-select of one, because a single select cannot be emptied once it has a value.
      return [channelsInput(name, label, channel ? [channel] : [], none, 1)];
    }
    default:
      return [];
  }
}

const BINDING_HINT =
  'There, lists show only what the team owns (with these labels), changes reach only that, and numbers bought and ' +
  'agents created there are theirs. Clear the channel to remove the binding.';

/** A row per binding and an empty one to add a binding: its channel, the owning team, and labels. */
function bindingInputs(bindings: readonly ChannelBinding[], names: ReadonlyMap<string, string>): KnownBlock[] {
  return [...bindings, undefined].flatMap((binding, index) => {
    const which = binding ? `Bound channel ${index + 1}` : 'Bind a channel';
    return [
      input(
        SETTINGS.binding(index, 'channel'),
        which,
        {
          type: 'multi_conversations_select',
          action_id: SETTINGS.value,
          max_selected_items: 1,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
          ...(binding ? { initial_conversations: [binding.channel] } : {}),
        },
        binding ? undefined : BINDING_HINT,
      ),
      input(SETTINGS.binding(index, 'owner'), `${which}: owning team`, {
        type: 'multi_external_select',
        action_id: SETTINGS.groupPick,
        min_query_length: 0,
        max_selected_items: 1,
        placeholder: plainText('Type a group’s name', 150),
        ...(binding?.owner ? { initial_options: [groupOption(binding.owner, names)] } : {}),
      }),
      textInput(
        SETTINGS.binding(index, 'labels'),
        `${which}: labels`,
        binding?.labels?.join(' ') ?? '',
        'Each must be there, separated by spaces, e.g. team:sales.',
      ),
    ];
  });
}

/** `names`: the user groups' names, for the pickers' chosen options. */
export function settingsModal(
  group: SettingsGroup,
  view: SettingsView,
  names: ReadonlyMap<string, string>,
  privateMetadata: string,
): ModalView {
  const blocks: KnownBlock[] = [];
  for (const [setting, label] of GROUPS[group].settings) {
    const lock = view.locks[setting];
    if (lock) {
      blocks.push(
        context(`*${label}*: ${valueText(setting, view.settings)}${lockNote(lock)}: changed there, not here.`),
      );
    } else if (setting === 'admins' || setting === 'operators' || setting === 'approvers') {
      blocks.push(...roleInputs(setting, label, view.settings, names));
    } else if (setting === 'channelBindings') {
      blocks.push(...bindingInputs(view.settings.channelBindings, names));
    } else {
      blocks.push(...policyInputs(setting, label, view.settings));
    }
  }
  blocks.push(context('Next: what the change does, to confirm. Nothing changes before you confirm.'));
  return modal({
    title: `${GROUPS[group].title} settings`,
    callbackId: CALLBACK.settings,
    submit: 'Review',
    close: 'Cancel',
    privateMetadata,
    blocks,
  });
}
