// A channel no longer quiet loses the changes its digest was keeping, in the transaction that writes the settings.
import { z } from 'zod';
import { subscriptionSchema } from '../settings-schema.js';
import type { OpsDeps } from './deps.js';
import type { SettingChange } from './settings-words.js';

/**
 * Forgets the lines waiting for each channel a settings change leaves no longer quiet (unsubscribed, or posted as it
 * comes): they would be stale news by the time it is quiet again. Run it in the transaction writing the change.
 */
export async function forgetUnquieted(deps: Pick<OpsDeps, 'store'>, changes: readonly SettingChange[]): Promise<void> {
  const changed = changes.find(({ name }) => name === 'subscriptions');
  if (!changed) return;
  const quiet = (value: unknown) =>
    (z.array(subscriptionSchema).safeParse(value).data ?? [])
      .filter((each) => each.quiet)
      .map(({ channel }) => channel);
  const stillQuiet = new Set(quiet(changed.after));
  for (const channel of quiet(changed.before)) {
    if (!stillQuiet.has(channel)) await deps.store.digests.forget(channel);
  }
}
