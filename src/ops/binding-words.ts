// What a channel's binding covers, in words: as a change of the settings says it, and as the settings show it.
import type { ChannelBinding } from '../settings-schema.js';
import type { Phrase } from './phrase.js';

/** "@sales-team's", "@sales-team's labelled vip", "what is labelled team:sales": what a binding covers. */
export function scopeWords(binding: ChannelBinding): Phrase {
  const labels = binding.labels?.length ? `labelled ${binding.labels.join(', ')}` : '';
  if (binding.owner === undefined) return [`what is ${labels}`];
  return [{ member: binding.owner }, `'s${labels ? ` ${labels}` : ''}`];
}
