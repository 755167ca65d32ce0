// The settings in force: what admins stored, under what the environment or the policy file locks, over the defaults.
// Each read knows the settings' version: a Slack delivery found it in the statement that recorded its key, before any
// listener had it; anything else (the reconciler, a sweep) reads it, one small statement. A change made on another
// replica is therefore in force here from the next request after its answer, with no restart, no message between
// replicas to lose, and no round trip added to a request.

import type { DeliveryScope } from '../delivery-scope.js';
import type { Logger } from '../log.js';
import { type GivenSettings, type Lock, type SettingName, type Settings, storedSettings } from '../settings-schema.js';
import type { SettingsRepo } from '../store/store.js';

/** The settings last read, and their version: one for the process, shared by every delivery's view. */
interface Known {
  last?: { version: number; settings: Settings };
}

export class SettingsInForce {
  constructor(
    private readonly stored: SettingsRepo,
    readonly given: GivenSettings,
    private readonly logger?: Logger,
    private readonly known: Known = {},
    private readonly delivery?: DeliveryScope,
  ) {}

  /** The settings in force as a Slack delivery sees them: as new as its key found them, with no read of the version. */
  forDelivery(delivery: DeliveryScope): SettingsInForce {
    return new SettingsInForce(this.stored, this.given, this.logger, this.known, delivery);
  }

  /**
   * The settings in force now: as new as the delivery these serve found them, or, `fresh`, as the store holds them at
   * this moment (what a change of them checks itself against).
   */
  async current(options: { fresh?: boolean } = {}): Promise<Settings> {
    const seen = options.fresh ? undefined : this.delivery?.settingsVersion;
    const version = seen ?? (await this.stored.version());
    // Versions only grow: settings read at this version or later are as new as the request needs.
    const known = this.known.last;
    if (known && known.version >= version) return known.settings;
    const read = await this.stored.read();
    const stored = storedSettings(read.values, (setting) =>
      this.logger?.warn({ setting }, 'a stored setting is not readable: its default is in force'),
    );
    const settings = { ...stored, ...this.given.locked };
    // Reads of several deliveries may cross: the newest is kept.
    if (!this.known.last || read.version >= this.known.last.version)
      this.known.last = { version: read.version, settings };
    return settings;
  }

  /** Where a locked setting is given; undefined when admins may change it in Slack. */
  lockedBy(name: SettingName): Lock | undefined {
    return this.given.lockedBy[name];
  }
}
