// The policy file: settings as code, in YAML (`voice-ops.policy.yml` unless VOICE_POLICY_FILE names another), read
// with the one settings schema. Each setting it gives is locked; every problem is said at once.
import { readFileSync } from 'node:fs';
import { isMap, parseDocument, stringify } from 'yaml';
import {
  APPROVABLE_ACTIONS,
  buyLimitText,
  parseBuyLimit,
  SETTING_NAMES,
  type SettingName,
  type Settings,
  settingsSchema,
} from './settings-schema.js';

/** Read from the working directory when present; a file VOICE_POLICY_FILE names must be there. */
export const DEFAULT_POLICY_FILE = 'voice-ops.policy.yml';

/** A setting written `null` or left empty is given as none (no limit, no channel, nobody). */
export interface PolicyFile {
  /** The file read; undefined when there is none (the default file absent). */
  path?: string;
  /** The settings it gives that are well formed: those with a problem are left out, and said in `problems`. */
  settings: Partial<Settings>;
  problems: string[];
}

const NOTHING: PolicyFile = { settings: {}, problems: [] };

const HOURS = (min: number) => `must be a whole number of hours from ${min} to 720`;
const IDS = 'must be a list of Slack user ids (U…, W…) and user-group ids (S…), e.g. [U012ABC, S034DEF]';
const CHANNELS = 'must be a list of channel ids (C… or G…), e.g. [C012ABC]';
const BUY_LIMIT = 'must be a count per day or per week, e.g. 5/day or 20/week';
const CHANNEL = 'must be a channel id (C… or G…)';

/** What each setting must be, said when its value is not. */
const MUST_BE: Record<SettingName, string> = {
  admins: IDS,
  operators: IDS,
  approvers: IDS,
  requireApproval: `must be a list of some of ${APPROVABLE_ACTIONS.join(', ')}`,
  approvalTtlHours: HOURS(1),
  buyLimit: BUY_LIMIT,
  buyLimitPerUser: BUY_LIMIT,
  changeChannels: CHANNELS,
  typedRelease: 'must be true or false',
  undoHours: HOURS(0),
  announcementsChannel: CHANNEL,
  approvalsChannel: CHANNEL,
  channelBindings:
    'must be a list of bindings, each a channel id with an owner (a user-group id, S…) or labels, ' +
    'e.g. [{ channel: C012ABC, owner: S034DEF, labels: [team:sales] }], and no channel twice',
  subscriptions:
    'must be a list of subscriptions, each with channel, kinds, labels, without, owners and quiet, e.g. ' +
    '[{channel: C012ABC, kinds: [route], labels: [team:sales], without: [], owners: [], quiet: false}]',
};

/** What an item of a list must be, said with the item. */
const ITEM_MUST_BE: Partial<Record<SettingName, string>> = {
  requireApproval: `is not one of ${APPROVABLE_ACTIONS.join(', ')}`,
};

const LISTS = new Set<SettingName>([
  'admins',
  'operators',
  'approvers',
  'requireApproval',
  'changeChannels',
  'channelBindings',
  'subscriptions',
]);
const OPTIONAL = new Set<SettingName>(['buyLimit', 'buyLimitPerUser', 'announcementsChannel', 'approvalsChannel']);

const isSettingName = (key: string): key is SettingName => (SETTING_NAMES as readonly string[]).includes(key);

/** `named` must exist, the default file need not. Never throws for the file's sake: see `problems`. */
export function readPolicyFile(named: string | undefined): PolicyFile {
  const path = named ?? DEFAULT_POLICY_FILE;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (code === 'ENOENT' && named === undefined) return NOTHING;
    const reason =
      code === 'ENOENT'
        ? 'there is no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : `cannot be read (${code})`;
    const which = named === undefined ? `the policy file ${path} is there` : `VOICE_POLICY_FILE names ${path}`;
    return { ...NOTHING, problems: [`${which}, but ${reason}`] };
  }
  return parsePolicyFile(text, path);
}

/** A policy file's text, read as the file at `path`. */
export function parsePolicyFile(text: string, path: string): PolicyFile {
  const problem = (line: string) => `${path}: ${line}`;
  const document = parseDocument(text, { prettyErrors: true });
  if (document.errors.length > 0) {
    // The parser's first line says what and where (line and column); the rest quotes the line.
    const problems = document.errors.map((error) => problem(error.message.split('\n')[0]?.replace(/:$/, '') ?? ''));
    return { path, settings: {}, problems };
  }
  if (document.contents === null) return { path, settings: {}, problems: [] }; // empty, or only comments
  if (!isMap(document.contents)) {
    return {
      path,
      settings: {},
      problems: [problem('must be a mapping of settings by name, e.g. "typedRelease: true" on a line of its own')],
    };
  }
  const values = document.toJS() as Record<string, unknown>;
  const settings: Partial<Record<SettingName, unknown>> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    if (!isSettingName(key)) {
      problems.push(problem(`${key} is not a setting Voice Ops reads (the settings are ${SETTING_NAMES.join(', ')})`));
      continue;
    }
    const read = readSetting(key, value);
    if ('problem' in read) problems.push(problem(read.problem));
    else settings[key] = read.value;
  }
  return { path, settings: settings as Partial<Settings>, problems };
}

/** One setting as written in the file, in the settings' own schema. */
function readSetting(name: SettingName, written: unknown): { value: unknown } | { problem: string } {
  let value = written;
  if (written === null) {
    // Left empty or null: none. A number or a yes-or-no has no "none".
    if (LISTS.has(name)) value = [];
    else if (OPTIONAL.has(name)) return { value: undefined };
    else return { problem: `${name} ${MUST_BE[name]}, not empty` };
  }
  if ((name === 'buyLimit' || name === 'buyLimitPerUser') && typeof value === 'string') {
    value = parseBuyLimit(value) ?? value;
  }
  const parsed = settingsSchema.shape[name].safeParse(value);
  if (parsed.success) return { value: parsed.data };
  const items = parsed.error.issues.filter((issue) => typeof issue.path[0] === 'number');
  if (Array.isArray(value) && items.length === parsed.error.issues.length) {
    const said = items.map((issue) => {
      const item: unknown = value[issue.path[0] as number];
      return `${name} ${JSON.stringify(item)} ${ITEM_MUST_BE[name] ?? issue.message}`;
    });
    return { problem: said.join('; ') };
  }
  return { problem: `${name} ${MUST_BE[name]}` };
}

/** Every setting written (none as `null`), so that parsePolicyFile reads back these settings. */
export function policyFileText(settings: Settings, comments: string[]): string {
  const written: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) written[name] = settings[name] ?? null;
  for (const name of ['buyLimit', 'buyLimitPerUser'] as const) {
    const limit = settings[name];
    written[name] = limit ? buyLimitText(limit) : null;
  }
  const header = comments.map((line) => `# ${line}`.trimEnd()).join('\n');
  return `${header}\n${stringify(written)}`;
}
