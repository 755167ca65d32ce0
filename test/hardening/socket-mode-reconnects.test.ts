// Socket Mode connections end: Slack asks for a new one (`disconnect`: refresh_requested several times a day,
// warning, link_disabled), a network drops the socket, a link goes silent. Each time the app logs what happened,
// opens a new connection and serves the next command; when Slack cannot hand out a connection yet, it tries again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownText } from '../e2e/support.js';
import { ADMIN, APP_TOKEN, startTestApp, type TestApp } from '../harness/app.js';
import type { DisconnectReason } from '../harness/socket-mode.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ socketMode: true });
});
afterAll(async () => {
  await t.close();
});

/** The connection's changes the app logged after `from` (a count of log lines): [level, state, reason?]. */
function connectionLog(app: TestApp, from: number): unknown[][] {
  return app.logs
    .entries()
    .slice(from)
    .filter((entry) => 'socketMode' in entry)
    .map((entry) => [entry.level, entry.socketMode, ...(entry.reason === undefined ? [] : [entry.reason])]);
}

/** `/voice help` over the current connection, answered. */
async function helpIsServed(): Promise<void> {
  const sent = await t.command('help', ADMIN);
  expect(shownText(await t.respondedTo(sent.responseUrlId))).toContain('Voice Ops commands');
}

const INFO = 30;
const WARN = 40;

describe('when Slack asks for a new connection', () => {
  it.each<DisconnectReason>(['refresh_requested', 'warning', 'link_disabled'])(
    'reconnects at once after `disconnect` (%s), logs why, and serves the next command',
    async (reason) => {
      const socket = t.slack.socketMode;
      const connections = socket.connections();
      const opens = t.slack.calls('apps.connections.open').length;
      const from = t.logs.lines().length;

      socket.requestReconnect(reason);
      await socket.waitForConnection(connections + 1);
      await helpIsServed();

      expect(connectionLog(t, from)).toEqual([
        [INFO, 'disconnected', reason],
        [INFO, 'reconnecting'],
        [INFO, 'connected'],
      ]);
      const reopened = t.slack.calls('apps.connections.open').slice(opens);
      expect(reopened.map((call) => call.token)).toEqual([APP_TOKEN]);
    },
  );
});

describe('when the connection is lost', () => {
  it('reconnects after the socket is dropped without a close frame, and serves the next command', async () => {
    const socket = t.slack.socketMode;
    const connections = socket.connections();
    const from = t.logs.lines().length;

    socket.drop();
    await socket.waitForConnection(connections + 1);
    await helpIsServed();

    expect(connectionLog(t, from)).toEqual([
      [INFO, 'disconnected', 'connection lost'],
      [INFO, 'reconnecting'],
      [INFO, 'connected'],
    ]);
  });

  it('tries again, with a warning, while Slack cannot hand out a connection', async () => {
    const socket = t.slack.socketMode;
    const connections = socket.connections();
    const from = t.logs.lines().length;
    t.slack.failNext('apps.connections.open', 'internal_error');

    socket.drop();
    await socket.waitForConnection(connections + 1);
    await helpIsServed();

    expect(connectionLog(t, from)).toEqual([
      [INFO, 'disconnected', 'connection lost'],
      [INFO, 'reconnecting'],
      [WARN, 'reconnecting'],
      [INFO, 'reconnecting'],
      [INFO, 'connected'],
    ]);
    const failed = t.logs.entries().find((entry) => entry.msg === 'Socket Mode: could not reconnect yet');
    expect(String(failed?.error)).toContain('internal_error');
  });

  it('replaces a link whose pings go unanswered', { timeout: 30_000 }, async () => {
    const socket = t.slack.socketMode;
    const connections = socket.connections();
    const from = t.logs.lines().length;
    await socket.ping();

    socket.answerPings(false);
    try {
      await expect
        .poll(() => connectionLog(t, from), { timeout: 15_000, interval: 50 })
        .toContainEqual([INFO, 'disconnected', 'connection lost']);
    } finally {
      socket.answerPings(true);
    }
    await socket.waitForConnection(connections + 1, 10_000);
    await helpIsServed();
    expect(socket.pingsReceived()).toBeGreaterThan(0);
  });
});

describe('when the app stops', () => {
  it('closes its connection, logs it, and does not reconnect', async () => {
    const other = await startTestApp({ socketMode: true });
    const from = other.logs.lines().length;
    await other.close();
    expect(connectionLog(other, from)).toEqual([[INFO, 'disconnected', 'the app is stopping']]);
  });
});
