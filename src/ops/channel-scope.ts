// A channel bound to a team or to labels: there, lists show only what the binding covers, changes reach only that,
// and numbers bought and agents created there get its owner and labels. Asked with the channel a person acts in; the
// Home tab has none, so it is never scoped.
import type { ChannelBinding, Settings } from '../settings-schema.js';
import type { StoredChange } from '../store/records.js';
import type { Tags } from '../store/tags.js';
import { type Attempt, deny } from './audit-rows.js';
import type { OpsDeps } from './deps.js';
import { changeKind, isKind, kindOf } from './kinds/index.js';
import { type TagFilter, tagsMatch } from './number-filter.js';
import type { Phrase } from './phrase.js';
import { type Actor, type Failure, fail } from './types.js';

/** The binding of this channel, if it has one. */
export const bindingOf = (settings: Settings, channelId: string | undefined): ChannelBinding | undefined =>
  channelId === undefined ? undefined : settings.channelBindings.find((binding) => binding.channel === channelId);

/** The binding of the channel a list is asked in, read from the settings in force. */
export async function scopeOf(deps: OpsDeps, channelId: string | undefined): Promise<ChannelBinding | undefined> {
  return channelId === undefined ? undefined : bindingOf(await deps.settings.current(), channelId);
}

/** What a binding covers, as a filter of labels and owner. */
const scopeFilter = (binding: ChannelBinding): TagFilter => ({
  ...(binding.owner !== undefined ? { owner: binding.owner } : {}),
  ...(binding.labels?.length ? { labels: binding.labels } : {}),
});

/** Whether a number or an agent with these tags is within the binding; everything is, outside a bound channel. */
export const inScope = (binding: ChannelBinding | undefined, tags: Tags | undefined): boolean =>
  binding === undefined || tagsMatch(scopeFilter(binding), tags);

/** Only the subjects within the binding (all of them outside a bound channel): one read of their tags. */
export async function withinScope<T>(
  deps: OpsDeps,
  binding: ChannelBinding | undefined,
  items: readonly T[],
  subjectOf: (item: T) => string,
): Promise<T[]> {
  if (binding === undefined) return [...items];
  const tags = await deps.store.tags.of(items.map(subjectOf));
  return items.filter((item) => inScope(binding, tags.get(subjectOf(item))));
}

/**
 * The first of what a change touches that the binding does not cover: its target (first) must be within it; an agent
 * it routes its number to may also be one nobody owns, since teams share such agents.
 */
export function outsideOf(
  binding: ChannelBinding | undefined,
  touched: readonly string[],
  tags: ReadonlyMap<string, Tags>,
): string | undefined {
  return touched.find((subject, index) => {
    const found = tags.get(subject);
    return !inScope(binding, found) && (index === 0 || found?.owner !== undefined);
  });
}

/** The tags a number bought or an agent created in a bound channel gets: the binding's owner and labels. */
const tagsOfBinding = (binding: ChannelBinding): Tags => ({
  labels: [...(binding.labels ?? [])].sort(),
  ...(binding.owner !== undefined ? { owner: binding.owner } : {}),
});

/** A change that makes its subject, asked in a bound channel: with the tags the subject is born with. */
export function bornIn<C extends StoredChange>(settings: Settings, actor: Actor, change: C): C {
  const binding = bindingOf(settings, actor.channelId);
  const born = kindOf(change).born;
  return binding && born ? (born(change, tagsOfBinding(binding)) as C) : change;
}

/**
 * In a bound channel, a change of a number or an agent outside its binding is refused, audited, naming the binding.
 * What a change makes is born within it, and a change of the settings is of no number or agent.
 */
export async function refuseOutsideScope(
  deps: OpsDeps,
  settings: Settings,
  actor: Actor,
  touched: readonly string[],
  attempt: Attempt,
): Promise<Failure | undefined> {
  const binding = bindingOf(settings, actor.channelId);
  if (binding === undefined || touched.length === 0) return undefined;
  const kind = isKind(attempt.action) ? changeKind(attempt.action) : undefined;
  if (kind?.born || kind?.unbound) return undefined;
  const outside = outsideOf(binding, touched, await deps.store.tags.of(touched));
  if (outside === undefined) return undefined;
  const failure = outsideBinding(binding, outside, 'Change it from its own channel.');
  return deny(deps, actor, attempt, failure, { rule: 'channelBindings', channel: binding.channel, subject: outside });
}

/**
 * In a bound channel, a card of a number or an agent outside its binding is not shown, as the lists there leave it
 * out; the answer names the binding.
 */
export async function cardOutsideScope(
  deps: OpsDeps,
  channelId: string | undefined,
  subject: string,
): Promise<Failure | undefined> {
  const binding = await scopeOf(deps, channelId);
  if (binding === undefined || inScope(binding, (await deps.store.tags.of([subject])).get(subject))) return undefined;
  return outsideBinding(binding, subject, 'Look it up from its own channel.');
}

/** "#sales is bound to @sales-team: +1… is not theirs. Change it from its own channel." */
function outsideBinding(binding: ChannelBinding, subject: string, then: string): Failure {
  const labels = binding.labels?.length ? `the labels ${binding.labels.join(', ')}` : undefined;
  const owner = binding.owner;
  const outside = owner !== undefined && !labels ? 'is not theirs' : 'is outside it';
  const rest = `: ${subject} ${outside}. ${then}`;
  const to: Phrase = [
    ...(owner !== undefined ? [{ member: owner }] : []),
    ...(labels ? [`${owner !== undefined ? ' with ' : ''}${labels}`] : []),
  ];
  const plain = [owner && `the user group ${owner}`, labels].filter(Boolean).join(' with ');
  const said: Phrase = [{ channel: binding.channel }, ' is bound to ', ...to, rest];
  return fail('denied', `${binding.channel} is bound to ${plain}${rest}`, { said, code: 'channel_binding' });
}
