// A settings form read back, or an inline error per input. A form changes the settings whose blocks it has, so the
// three forms share this one reader.
import type { ViewOutput } from '@slack/bolt';
import { SETTING_NAMES, type SettingName } from '../settings-schema.js';
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
      case 'announcementsChannel':
      case 'approvalsChannel':
        if (has(name)) proposed[name] = element(values, SETTINGS.block(name))?.selected_conversations?.[0] ?? null;
        break;
    }
  }
  return { proposed, errors };
}
