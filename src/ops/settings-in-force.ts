// The settings in force: what admins stored, under what the environment or the policy file locks, over the defaults.
// Each read knows the settings' version: a Slack delivery found it in the statement that recorded its key, before any
// listener had it; anything else (the reconciler, a sweep) reads it, one small statement. A change made on another
// replica is therefore in force here from the next request after its answer, with no restart, no message between
// replicas to lose, and no round trip added to a request.

import { settingsVersionSeen } from '../delivery-scope.js';
import type { Logger } from '../log.js';
import { type GivenSettings, type Lock, type SettingName, type Settings, storedSettings } from '../settings.js';
import type { SettingsRepo } from '../store/store.js';

export class SettingsInForce {
  #known?: { version: number; settings: Settings };

  constructor(
    private readonly stored: SettingsRepo,
    readonly given: GivenSettings,
    private readonly logger?: Logger,
  ) {}

  /**
   * The settings in force now: as new as the delivery under way found them, or, `fresh`, as the store holds them at
   * this moment (what a change of them checks itself against).
   */
  async current(options: { fresh?: boolean } = {}): Promise<Settings> {
    const seen = options.fresh ? undefined : settingsVersionSeen();
    const version = seen ?? (await this.stored.version());
    // Versions only grow: settings read at this version or later are as new as the request needs.
    if (this.#known && this.#known.version >= version) return this.#known.settings;
    const read = await this.stored.read();
    const stored = storedSettings(read.values, (setting) =>
      this.logger?.warn({ setting }, 'a stored setting is not readable: its default is in force'),
    );
    const settings = { ...stored, ...this.given.locked };
    this.#known = { version: read.version, settings };
    return settings;
  }

  /** Where a locked setting is given; undefined when admins may change it in Slack. */
  lockedBy(name: SettingName): Lock | undefined {
    return this.given.lockedBy[name];
  }
}
