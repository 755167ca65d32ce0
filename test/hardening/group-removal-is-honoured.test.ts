// Someone taken out of an operators' user group loses the role once the app's five-minute cache of the group's
// members runs out: new requests and confirmations they asked for while still a member are both refused, and audited.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { askForConfirmation, auditRows, auditTrail, confirmAs, shownText, voiceNumber } from '../e2e/support.js';
import { startTestApp, type TestApp } from '../harness/app.js';
import { correlationOf } from './support.js';

const GROUP = 'SOPS';
const MEMBER = 'UGROUPIE';
const CACHE_MS = 5 * 60_000;

let aheadMs = 0;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    operators: [GROUP],
    groups: { [GROUP]: [MEMBER] },
    now: () => new Date(Date.now() + aheadMs),
  });
});
afterAll(async () => {
  await t?.close();
});

const groupReads = () => t.slack.calls('usergroups.users.list').filter((call) => call.body.usergroup === GROUP).length;

it('a member removed from the group is denied once the cached membership expires, and the denial is audited', async () => {
  const number = await voiceNumber(t, 'US', 0);
  // A member may ask; the request is waiting for confirmation when the group changes.
  const pending = await askForConfirmation(t, MEMBER, `numbers buy ${number}`);
  const reads = groupReads();
  expect(reads).toBeGreaterThan(0);

  t.slack.setGroupMembers(GROUP, []);

  // Within the cache's lifetime the app has not read the group again: the removal is not known yet.
  aheadMs = CACHE_MS - 10_000;
  await askForConfirmation(t, MEMBER, `numbers buy ${await voiceNumber(t, 'US', 1)}`);
  expect(groupReads()).toBe(reads);

  // Past it, the group is read again and the member is an operator no more.
  aheadMs = CACHE_MS + 1000;
  const before = (await auditRows(t)).length;
  const buys = t.sandbox.requestCount('buyNumber');
  const sent = await t.command(`numbers buy ${await voiceNumber(t, 'US', 2)}`, MEMBER);
  const denied = shownText(await t.respondedTo(sent.responseUrlId));

  expect(groupReads()).toBe(reads + 1);
  expect(denied).toContain('You need the operator role to buy numbers');
  expect(denied).toContain('VOICE_OPERATORS');
  const audited = (await auditRows(t)).slice(before);
  expect(audited).toEqual([
    expect.objectContaining({ actor_id: MEMBER, action: 'access.denied', outcome: 'denied', error_code: 'denied' }),
  ]);
  expect(JSON.parse(audited[0]?.params ?? '{}')).toMatchObject({ attempted: 'number.buy', needed: 'operator' });

  // The confirmation asked for while a member is refused too: the role is checked again when confirming.
  const late = shownText(await confirmAs(t, MEMBER, pending.confirmationId));
  expect(late).toContain('You need the operator role to buy numbers');
  expect(
    (await auditTrail(t, await correlationOf(t, pending.confirmationId))).map((row) => `${row.action} ${row.outcome}`),
  ).toEqual(['number.buy requested', 'access.denied denied']);
  expect(t.sandbox.requestCount('buyNumber')).toBe(buys);
});
