// The words of a filter by labels and owner, shared by `/voice numbers`, the bulk commands and `/voice agents`:
// `label:X` (each must hold), `-label:X` (none may), `owner:@team` and `unowned`.
import type { TagFilter } from '../ops/api.js';
import { labelSchema, teamWritten } from '../settings-schema.js';
import { code } from './mrkdwn.js';

/** Characters of a word echoed back in an error. */
const ECHO_MAX = 60;

/** The words that start a tag filter, for telling a filter from a number or a name. */
export const TAG_WORD = /^(unowned|-?label:.*|owner:.*)$/i;

export const TAG_FORMS = '`label:LABEL`, `-label:LABEL`, `owner:@team`, `unowned`';

/**
 * Reads the tag word at `args[index]` into `filter`: how many words it took (`owner:` may stand apart from its team),
 * 0 when it is no tag word, or the error to answer with.
 */
export function readTagWord(args: string[], index: number, filter: TagFilter): number | { error: string } {
  const word = args[index] ?? '';
  const lowered = word.toLowerCase();
  if (lowered === 'unowned') return setOwner(filter, undefined) ?? 1;
  const label = /^(-?)label:(.*)$/i.exec(word);
  if (label) return addLabel(filter, label[2] ?? '', label[1] === '-') ?? 1;
  if (!lowered.startsWith('owner:')) return 0;
  const apart = lowered === 'owner:';
  const team = apart ? (args[index + 1] ?? '') : word.slice('owner:'.length);
  const id = teamWritten(team);
  if (id === undefined) {
    return {
      error:
        `${code(word, ECHO_MAX)} names no team: give it as a mention Slack completes, \`owner:@sales-team\`, or ` +
        'its user-group id, `owner:S0123ABC`.',
    };
  }
  return setOwner(filter, id) ?? (apart ? 2 : 1);
}

function addLabel(filter: TagFilter, typed: string, excluded: boolean): { error: string } | undefined {
  const written = `${excluded ? '-' : ''}label:`;
  if (!typed) return { error: `Give the label after ${code(written)}: ${code(`${written}team:sales`)}.` };
  const label = typed.toLowerCase();
  const checked = labelSchema.safeParse(label);
  if (!checked.success) {
    const problem = checked.error.issues[0]?.message ?? 'is not a label';
    return { error: `${code(`${written}${typed}`, ECHO_MAX)}: ${code(typed, ECHO_MAX)} ${problem}.` };
  }
  const [mine, other] = excluded ? (['without', 'labels'] as const) : (['labels', 'without'] as const);
  if (filter[other]?.includes(label)) {
    return { error: `${code(`label:${label}`)} and ${code(`-label:${label}`)} cannot both hold.` };
  }
  filter[mine] = [...new Set([...(filter[mine] ?? []), label])];
  return undefined;
}

/** One owner, or nobody (`unowned`): two of them cannot both hold. */
function setOwner(filter: TagFilter, owner: string | undefined): { error: string } | undefined {
  const said = (id: string | undefined) => code(id ? `owner:${id}` : 'unowned');
  const before = filter.unowned ? undefined : filter.owner;
  if ((filter.unowned || filter.owner !== undefined) && before !== owner) {
    return { error: `Give one owner: ${said(before)} and ${said(owner)} cannot both hold.` };
  }
  if (owner === undefined) filter.unowned = true;
  else filter.owner = owner;
  return undefined;
}
