// Intents on both engines: opened once per change, closed once by whichever of the change and the reconciler is first.
import { describe, expect, it } from 'vitest';
import { Intents } from '../../src/store/intents.js';
import { ENGINES, manualClock, useTempDatabases } from './helpers.js';

const ADA = { userId: 'U_ADA', source: 'command' as const };
const BOB = { userId: 'U_BOB', source: 'button' as const };

const buy = (correlationId: string, actor: typeof ADA | typeof BOB = ADA) => ({
  correlationId,
  action: 'number.buy',
  change: { kind: 'number.buy' as const, number: '+15550100' },
  actor,
  replyAddress: `https://hooks.slack.test/${correlationId}`,
});

describe.each(ENGINES)('Intents on %s', (engine) => {
  const temp = useTempDatabases(engine);

  async function newIntents() {
    const clock = manualClock();
    return { clock, intents: new Intents(await temp.open(), { now: clock.now }) };
  }

  it('opens an intent once per change: opening it again changes nothing', async () => {
    const { intents, clock } = await newIntents();
    await intents.open(buy('c1'));
    clock.advance(1_000);
    await intents.open({ ...buy('c1', BOB), action: 'number.release' });

    expect(await intents.get('c1')).toEqual({
      ...buy('c1'),
      openedAt: '2026-11-01T09:00:00.000Z',
      closedAt: undefined,
      outcome: undefined,
    });
    expect(await intents.get('c2')).toBeUndefined();
  });

  it('closes an intent once, dropping its reply address; a later close changes nothing', async () => {
    const { intents, clock } = await newIntents();
    await intents.open(buy('c1'));
    clock.advance(5_000);

    expect(await intents.close('c1', 'succeeded')).toBe(true);
    const closed = await intents.get('c1');
    expect(closed).toEqual(
      expect.objectContaining({ outcome: 'succeeded', closedAt: '2026-11-01T09:00:05.000Z', replyAddress: undefined }),
    );
    clock.advance(5_000);
    expect(await intents.close('c1', 'failed')).toBe(false);
    expect(await intents.get('c1')).toEqual(closed);
    expect(await intents.close('never-opened', 'failed')).toBe(false);
  });

  it('is closed by exactly one of many closes at once', async () => {
    const { intents } = await newIntents();
    await intents.open(buy('c1'));
    const outcomes = ['succeeded', 'failed', 'succeeded', 'failed', 'succeeded', 'failed'] as const;

    const closed = await Promise.all(outcomes.map((outcome) => intents.close('c1', outcome)));
    expect(closed.filter(Boolean)).toHaveLength(1);
    expect((await intents.get('c1'))?.outcome).toBe(outcomes[closed.indexOf(true)]);
  });

  it("counts the open intents of an action, everyone's or one person's", async () => {
    const { intents } = await newIntents();
    expect(await intents.openCount('number.buy')).toBe(0);
    await intents.open(buy('c1'));
    await intents.open(buy('c2', BOB));
    await intents.open({ ...buy('c3'), action: 'number.release' });

    expect(await intents.openCount('number.buy')).toBe(2);
    expect(await intents.openCount('number.buy', 'U_ADA')).toBe(1);
    expect(await intents.openCount('number.buy', 'U_CAROL')).toBe(0);
    await intents.close('c1', 'succeeded');
    expect(await intents.openCount('number.buy')).toBe(1);
    expect(await intents.openCount('number.buy', 'U_ADA')).toBe(0);
  });

  it('finds the intents touched since a time, and those still open since before one, oldest first', async () => {
    const { intents, clock } = await newIntents();
    await intents.open(buy('closed-early'));
    await intents.close('closed-early', 'succeeded');
    clock.advance(60_000);
    await intents.open(buy('open-old'));
    clock.advance(60_000);
    await intents.open(buy('closed-late'));
    const since = clock.now();
    clock.advance(60_000);
    await intents.close('closed-late', 'failed');
    await intents.open(buy('open-new'));

    const ids = (found: { correlationId: string }[]) => found.map((intent) => intent.correlationId).sort();
    expect(ids(await intents.touchedSince(since))).toEqual(['closed-late', 'open-new', 'open-old']);
    expect((await intents.openedBefore(since)).map((intent) => intent.correlationId)).toEqual(['open-old']);
    expect((await intents.openedBefore(clock.now())).map((intent) => intent.correlationId)).toEqual([
      'open-old',
      'open-new',
    ]);
  });
});
