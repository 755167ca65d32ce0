// What one Slack delivery set going (an intent recorded, a change sent), so that a failure half-way tells the person
// the truth; and the settings' version its key found, sparing a round trip. Handed down explicitly
// (OpsDeps.delivery), not an AsyncLocalStorage: on Node 20 one turns on async hooks for every promise of the process.
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
