// The settings as operations: what is in force and where each comes from, an admin's change of them (checked,
// then confirmed through the kinds' one path), and the seeding of what the configuration gives.

import { z } from 'zod';
import { type Lock, SETTING_NAMES, type SettingName, type Settings, settingsSchema } from '../settings-schema.js';
import { jsonText } from '../store/columns.js';
import { requestConfirmation } from './ask-confirmation.js';
import { newCorrelationId, record } from './audit-rows.js';
import type { ConfirmationPrompt } from './changes.js';
import type { OpsDeps } from './deps.js';
import { KIND } from './kinds/index.js';
import { SETTINGS_TARGET } from './kinds/settings-change.js';
import { mayRequest } from './policies.js';
import { refuseSettingsChange } from './settings-checks.js';
import type { SettingChange } from './settings-words.js';
import { atomically } from './transactions.js';
import { type Actor, fail, type Result } from './types.js';
import { forgetUnquieted } from './unquieted.js';

/** The settings in force, and those the configuration locks with where each is given. */
export interface SettingsView {
  settings: Settings;
  locks: Partial<Record<SettingName, Lock>>;
}

export async function settingsView(deps: OpsDeps, options: { fresh?: boolean } = {}): Promise<SettingsView> {
  return { settings: await deps.settings.current(options), locks: deps.settings.given.lockedBy };
}

/** The settings that may be none (a limit, a channel); any other given as null is refused by the schema. */
const MAY_BE_NONE: readonly string[] = SETTING_NAMES.filter(
  (name) => settingsSchema.shape[name].safeParse(undefined).success,
);

/** Settings by name, null for one to unset (a limit removed, a channel cleared). */
const proposal = z.record(z.string(), z.unknown()).transform((values) => ({
  named: Object.keys(values),
  values: Object.fromEntries(
    Object.entries(values).filter(([name, value]) => value !== null || !MAY_BE_NONE.includes(name)),
  ),
}));

const sameValue = (a: unknown, b: unknown): boolean => jsonText(a ?? null) === jsonText(b ?? null);

/** What a proposal changes, setting by setting (`named`), against the settings in force. */
function changesFrom(now: Settings, proposed: Partial<Settings>, named: readonly string[]): SettingChange[] {
  return SETTING_NAMES.filter((name) => named.includes(name) && !sameValue(now[name], proposed[name])).map((name) => ({
    name,
    before: now[name] ?? null,
    after: proposed[name] ?? null,
  }));
}

/**
 * An admin's change of some settings (a form's worth): refused as it stands when it touches a locked setting, would
 * leave no admin, or asks for approvals with nowhere to ask; else the confirmation of what it does. A form that
 * changes nothing is said so, and nothing is asked.
 */
export async function requestSettingsChange(
  deps: OpsDeps,
  actor: Actor,
  input: unknown,
  correlationId: string,
): Promise<Result<{ prompt: ConfirmationPrompt }>> {
  const denied = await mayRequest(deps, actor, { action: KIND.settings, target: SETTINGS_TARGET, correlationId });
  if (denied) return denied;
  const given = proposal.safeParse(input);
  const parsed = settingsSchema.partial().strict().safeParse(given.data?.values);
  if (!given.success || !parsed.success) {
    const issue = (given.error ?? parsed.error)?.issues[0];
    return fail('invalid', `That is not a setting Voice Ops reads: ${issue?.path.join('.')} ${issue?.message}`);
  }
  const now = await deps.settings.current();
  const changes = changesFrom(now, parsed.data, given.data.named);
  const refused = await refuseSettingsChange(deps, actor, now, changes);
  if (refused) return refused;
  if (changes.length === 0)
    return fail('invalid', 'Nothing to change: the settings already say that.', { code: 'unchanged' });
  const groupsIn = actor.teamId ? { teamId: actor.teamId } : {};
  return requestConfirmation(deps, actor, correlationId, { kind: KIND.settings, changes, ...groupsIn });
}

/** Who changes the settings at start: the environment or the policy file, never a person. */
export const CONFIGURATION: Actor = { userId: 'configuration', userName: 'the configuration', source: 'system' };

/**
 * Writes locked settings and missing seeds into the store at start: one audited change, or nothing. The store's
 * lock on the settings makes replicas starting together take turns.
 */
export async function seedSettings(deps: OpsDeps): Promise<void> {
  const { locked, seed } = deps.settings.given;
  await atomically(deps, async (deps) => {
    await deps.store.lock(SETTINGS_TARGET);
    const stored = await deps.store.settings.read();
    const changes: SettingChange[] = [];
    for (const name of SETTING_NAMES) {
      const given = name in locked ? locked : !stored.values.has(name) && name in seed ? seed : undefined;
      if (!given || sameValue(stored.values.get(name), given[name])) continue;
      changes.push({ name, before: stored.values.get(name) ?? null, after: given[name] ?? null });
    }
    if (changes.length === 0) return;
    await deps.store.settings.write(new Map(changes.map((c) => [c.name, c.after ?? undefined])), CONFIGURATION.userId);
    await forgetUnquieted(deps, changes);
    await record(deps, CONFIGURATION, newCorrelationId(), {
      action: KIND.settings,
      outcome: 'succeeded',
      target: SETTINGS_TARGET,
      params: { changes },
    });
  });
}
