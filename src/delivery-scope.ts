// What one Slack delivery set going: whether it recorded a change's intent, and whether it sent a change to the
// provider. A failure that stops the delivery half-way (its database, say) can then tell the person the truth: nothing
// was changed; or a change was started, which the reconciler finishes or settles; or it reached the provider, and is
// checked with it. It also carries the settings' version the delivery's key found, so that its reads of the settings
// need no round trip of their own.
//
// The Slack layer makes one per delivery (slack/database-faults.ts) and hands it down explicitly: the operations a
// delivery's listeners get are bound to it (OpsDeps.delivery). Not an AsyncLocalStorage: on Node 20 one in use turns
// on async hooks for every promise of the process, which cost a lone command about a tenth of its CPU.
export class DeliveryScope {
  /** Whether a change's intent was written (committed) for this delivery: the reconciler will settle it. */
  intentOpened = false;
  /** Whether a request that may change the provider's state was sent for this delivery. */
  changeSent = false;
  /** The settings' version read with the delivery's key, before any listener had it (see store/delivery-keys.ts). */
  settingsVersion?: number;
  /** The settings' version the delivery's key found, in the one statement before its acknowledgement. */
  noteSettingsVersion(settingsVersion: number): void {
    this.settingsVersion = settingsVersion;
  }

  /** A change's intent was written for this delivery: from now on it is settled, whatever happens. */
  noteIntentOpened(): void {
    this.intentOpened = true;
  }

  /** A request that may change the provider's state was sent for this delivery. */
  noteChangeSent(): void {
    this.changeSent = true;
  }
}
