// The settings in force as one replica reads them while another changes them: a delivery is answered at the version
// its key found, with no read of its own, but a fresh read (what a settings change checks itself against at Confirm)
// sees the other replica's change at once, and the process keeps the newer settings from then on.
import { describe, expect, it } from 'vitest';
import { parseGivenSettings } from '../../src/config.js';
import { DeliveryScope } from '../../src/delivery-scope.js';
import { SettingsInForce } from '../../src/ops/api.js';
import { SettingsRows } from '../../src/store/settings-rows.js';
import type { SqlEngine } from '../../src/store/sql.js';
import { ENGINES, useTempDatabases } from './helpers.js';

const setAdmins = (sql: SqlEngine, admins: string[]) =>
  sql.transaction((tx) => new SettingsRows(tx).write(new Map([['admins', admins]]), 'U1ADA'));

describe.each(ENGINES)('on %s', () => {
  const temp = useTempDatabases();

  it('reads at the version a delivery found unless asked for the settings as stored now', async () => {
    const here = await temp.open('settings.db');
    const otherReplica = await temp.open('settings.db');
    await setAdmins(here, ['U1ADA']);
    const inForce = new SettingsInForce(new SettingsRows(here), parseGivenSettings({}));
    const delivery = new DeliveryScope();
    delivery.settingsVersion = await new SettingsRows(here).version();
    const seenByDelivery = inForce.forDelivery(delivery);
    expect((await seenByDelivery.current()).admins).toEqual(['U1ADA']);

    await setAdmins(otherReplica, ['U2BEA']);

    // The delivery arrived before the change: it is answered as it found the settings, without a round trip.
    expect((await seenByDelivery.current()).admins).toEqual(['U1ADA']);
    // A fresh read sees the other replica's change, and from then on every delivery's view has it.
    expect((await seenByDelivery.current({ fresh: true })).admins).toEqual(['U2BEA']);
    expect((await seenByDelivery.current()).admins).toEqual(['U2BEA']);
    expect((await inForce.current()).admins).toEqual(['U2BEA']);
  });
});
