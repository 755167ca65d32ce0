// The settings in force: locked ones, over what admins stored, over the defaults. A delivery finds their version with
// its key, so that another replica's change is in force from the next request, with no round trip added.

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

  /** As the delivery these serve found them, or, `fresh`, as the store holds them now (for a change to check). */
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
