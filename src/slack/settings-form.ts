// A settings form read back, or an inline error per input. A form changes the settings whose blocks it has, so the
// three forms share this one reader.
import type { ViewOutput } from '@slack/bolt';
import { type ChannelBinding, labelsTyped, notALabel, SETTING_NAMES, type SettingName } from '../settings-schema.js';
import { SETTINGS } from './ids.js';

type Values = ViewOutput['state']['values'];
type Element = Values[string][string];

export interface ReadForm {
  proposed: Record<string, unknown>;
  /** Inline errors by block id; none when the form reads. */
  errors: Record<string, string>;
}

const element = (values: Values, block: string): Element | undefined => values[block]?.[SETTINGS.value];
const picked = (values: Values, block: string, action: string = SETTINGS.value) =>
  (values[block]?.[action]?.selected_options ?? []).map((choice) => choice.value);

/** A whole number of hours typed, within its bounds. */
function hours(typed: string | null | undefined, min: number): number | string {
  const text = typed?.trim() ?? '';
  const value = Number(text);
  return /^\d+$/.test(text) && value >= min && value <= 720 ? value : `A whole number of hours from ${min} to 720.`;
}

/** The bindings' rows: a row without a channel is none (removed, or the empty row to add one left empty). */
function readBindings(values: Values, errors: Record<string, string>): ChannelBinding[] {
  const bindings: ChannelBinding[] = [];
  for (let index = 0; SETTINGS.binding(index, 'channel') in values; index += 1) {
    const channel = element(values, SETTINGS.binding(index, 'channel'))?.selected_conversations?.[0];
    if (!channel) continue;
    const [owner] = picked(values, SETTINGS.binding(index, 'owner'), SETTINGS.groupPick);
    const read = labelsTyped(element(values, SETTINGS.binding(index, 'labels'))?.value ?? '');
    const labels = 'labels' in read ? read.labels : [];
    if ('wrong' in read) {
      errors[SETTINGS.binding(index, 'labels')] = notALabel(read.wrong);
    } else if (owner === undefined && labels.length === 0) {
      errors[SETTINGS.binding(index, 'owner')] = 'Choose a team or type labels, or clear the channel to remove it.';
    } else if (bindings.some((binding) => binding.channel === channel)) {
      errors[SETTINGS.binding(index, 'channel')] = 'That channel is bound above already: a channel is bound once.';
    } else {
      bindings.push({ channel, ...(owner ? { owner } : {}), ...(labels.length ? { labels } : {}) });
    }
  }
  return bindings;
}

export function readSettingsForm(values: Values): ReadForm {
  const proposed: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  const has = (name: SettingName, part?: Parameters<typeof SETTINGS.block>[1]) => SETTINGS.block(name, part) in values;
  for (const name of SETTING_NAMES) {
    switch (name) {
      case 'admins':
      case 'operators':
      case 'approvers':
        if (!has(name, 'people')) break;
        proposed[name] = [
          ...(element(values, SETTINGS.block(name, 'people'))?.selected_users ?? []),
          ...picked(values, SETTINGS.block(name, 'groups'), SETTINGS.groupPick),
        ];
        break;
      case 'requireApproval':
        if (has(name)) proposed[name] = picked(values, SETTINGS.block(name));
        break;
      case 'typedRelease':
        if (has(name)) proposed[name] = picked(values, SETTINGS.block(name)).includes('on');
        break;
      case 'approvalTtlHours':
      case 'undoHours': {
        if (!has(name)) break;
        const read = hours(element(values, SETTINGS.block(name))?.value, name === 'undoHours' ? 0 : 1);
        if (typeof read === 'number') proposed[name] = read;
        else errors[SETTINGS.block(name)] = read;
        break;
      }
      case 'buyLimit':
      case 'buyLimitPerUser': {
        if (!has(name, 'count')) break;
        const typed = element(values, SETTINGS.block(name, 'count'))?.value?.trim() ?? '';
        const window = element(values, SETTINGS.block(name, 'window'))?.selected_option?.value ?? 'day';
        if (typed === '') proposed[name] = null;
        else if (/^\d{1,6}$/.test(typed)) proposed[name] = { count: Number(typed), window };
        else errors[SETTINGS.block(name, 'count')] = 'A whole number of numbers, or empty for no limit.';
        break;
      }
      case 'changeChannels':
        if (has(name)) proposed[name] = element(values, SETTINGS.block(name))?.selected_conversations ?? [];
        break;
      case 'channelBindings':
        if (SETTINGS.binding(0, 'channel') in values) proposed[name] = readBindings(values, errors);
        break;
      case 'announcementsChannel':
      case 'approvalsChannel':
        if (has(name)) proposed[name] = element(values, SETTINGS.block(name))?.selected_conversations?.[0] ?? null;
        break;
    }
  }
  return { proposed, errors };
}
