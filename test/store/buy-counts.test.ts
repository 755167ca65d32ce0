// What the buy limits count: successful buys in the window from the audit (reconciled ones included, and for the
// workspace those made outside Voice Ops), plus buys under way (open intents), the workspace's or one person's.
import { describe, expect, it } from 'vitest';
import { windowAround } from '../../src/ops/policies.js';
import { type AuditEntry, AuditLog } from '../../src/store/audit.js';
import { Intents } from '../../src/store/intents.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const buy = (actorId: string, source: AuditEntry['source'], outcome: AuditEntry['outcome'] = 'succeeded') =>
  ({ actorId, source, action: 'number.buy', outcome, target: '+14155550100', correlationId: 'c' }) as const;

describe.each(ENGINES)('on %s', (engine) => {
  const temp = useTempDatabases(engine);

  it('counts the window’s successful buys: reconciled for their requester, outside ones for the workspace only', async () => {
    const clock = manualClock('2026-11-22T23:00:00.000Z'); // a Sunday: the ISO week before
    const audit = new AuditLog(await temp.open(), { now: clock.now });
    await audit.append(buy('UA', 'command'));
    clock.set('2026-11-23T08:00:00.000Z'); // Monday
    await audit.append(buy('UA', 'command'));
    await audit.append(buy('UA', 'system')); // reconciled after a crash, in the requester's name
    await audit.append(buy('UA', 'command', 'failed'));
    await audit.append(buy('outside Voice Ops', 'provider'));
    await audit.append(buy('UB', 'button'));
    await audit.append({ ...buy('UA', 'command'), action: 'number.release' });

    const day = windowAround('day', clock.now());
    expect(day).toEqual({ from: new Date('2026-11-23T00:00:00.000Z'), until: new Date('2026-11-24T00:00:00.000Z') });
    expect(await audit.succeededCount('number.buy', day)).toBe(4);
    expect(await audit.succeededCount('number.buy', day, 'UA')).toBe(2);
    expect(await audit.succeededCount('number.buy', day, 'outside Voice Ops')).toBe(0);

    clock.set('2026-11-29T23:59:59.000Z'); // Sunday: still the same ISO week
    const week = windowAround('week', clock.now());
    expect(week).toEqual({ from: new Date('2026-11-23T00:00:00.000Z'), until: new Date('2026-11-30T00:00:00.000Z') });
    expect(await audit.succeededCount('number.buy', week)).toBe(4);
  });

  it('counts buys under way, until their intent closes', async () => {
    const intents = new Intents(await temp.open());
    const actor = { userId: 'UA', source: 'command' as const };
    await intents.open({
      correlationId: 'c1',
      action: 'number.buy',
      change: { kind: 'number.buy', number: '+15550100' },
      actor,
    });
    await intents.open({
      correlationId: 'c2',
      action: 'number.buy',
      change: { kind: 'number.buy', number: '+15550101' },
      actor: { ...actor, userId: 'UB' },
    });
    await intents.open({
      correlationId: 'c3',
      action: 'number.release',
      change: { kind: 'number.release', numberId: 'n1', number: '+15550102' },
      actor,
    });
    expect(await intents.openCount('number.buy')).toBe(2);
    expect(await intents.openCount('number.buy', 'UA')).toBe(1);
    await intents.close('c1', 'succeeded');
    expect(await intents.openCount('number.buy')).toBe(1);
    expect(await intents.openCount('number.buy', 'UA')).toBe(0);
  });
});
