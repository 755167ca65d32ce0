// Bodies sent to the Slack URL with a made-up signature and a current timestamp (a timestamp is no secret) cannot be
// told from Slack's until they are in, so the app's own process bounds them while they arrive: a body past the
// limit (declared, or streamed without a length) is refused with 413 as it comes; one still arriving at its
// deadline is answered 408 and its connection closed; past the cap on bodies read at once, the longest-waiting one
// is refused with 503 and Retry-After. Through 1,000 of them hanging, someone's signed `/voice help` is answered,
// and the process holds no more of them than the cap allows.
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CONNECTION_LIMITS } from '../../src/http-front.js';
import { BODY_DEADLINE_MS, BODY_LIMIT_BYTES, UNPROVEN_BODIES_MAX } from '../../src/slack/receiver.js';
import { shownText } from '../e2e/support.js';
import { OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { forged, type RawRequest } from '../harness/forged-request.js';
import { metricValue } from '../harness/metrics.js';
import { slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import { type ProcessBed, startReplicas, useProcessBed } from './process-support.js';
import { until } from './support.js';

const bed: ProcessBed = useProcessBed('voice-ops-bodies-', []);

const ATTACKERS = 1_000;
/** Connections being opened at once, so that the test's own sockets stay few at any moment. */
const OPENING_AT_ONCE = 50;
/** What each forged body sends of its declared length before it hangs: within the limit, so it is read and held. */
const SENT_BYTES = 512 * 1024;
const MiB = 1024 * 1024;
/** More than the kernel's buffers between the test and the app hold, so that a body read to its end would show. */
const STREAMED_BYTES = 64 * MiB;

/** A body declaring `BODY_LIMIT_BYTES`, of which `sent` bytes are sent before it hangs. */
const slowBody = (eventsUrl: string, sent = 16) =>
  forged(eventsUrl, { 'content-length': String(BODY_LIMIT_BYTES) }, Buffer.alloc(sent, 'a'));

const baseOf = (eventsUrl: string) => new URL(eventsUrl).origin;
const refused = (eventsUrl: string, reason: string) =>
  metricValue(baseOf(eventsUrl), `voice_ops_slack_requests_refused_total{reason="${reason}"}`);
const unproven = (eventsUrl: string) => metricValue(baseOf(eventsUrl), 'voice_ops_slack_unproven_bodies');

/** The process's resident memory, bytes. */
function rssOf(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

async function startApp() {
  const [app] = await startReplicas(bed, 1);
  if (!app) throw new Error('no app started');
  return { ...app, pid: (await app.ready).pid };
}

async function help(eventsUrl: string, id: string) {
  const command = slashCommand({ text: 'help', userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) });
  const acked = await postToSlackApp(eventsUrl, SIGNING_SECRET, command);
  expect(acked.status).toBe(200);
  bed.slack.showAcknowledgement(id, acked.json);
  const reply = await bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === id);
  expect(shownText(reply)).toContain('/voice');
}

describe('a forged body', () => {
  it('over the limit is refused with 413: from its declared length before any byte of it, or as it streams', async () => {
    const { eventsUrl } = await startApp();
    const before = await refused(eventsUrl, 'too large');

    const declared = await forged(eventsUrl, { 'content-length': String(BODY_LIMIT_BYTES + 1) });
    expect((await declared.answered).status).toBe(413);

    // No length announced: the body is cut off once it passes the limit, while the sender still sends. The app
    // closes the connection with its answer; with the sender's bytes still arriving, the answer may be lost to the
    // reset that follows.
    const streamed = await forged(eventsUrl, { 'transfer-encoding': 'chunked' });
    const chunk = `${(64 * 1024).toString(16)}\r\n${'a'.repeat(64 * 1024)}\r\n`;
    let sent = 0;
    // Sent until a write fails or the app has answered or hung up (its end of the connection ended).
    let open = true;
    while (open && sent < STREAMED_BYTES) {
      open = await new Promise<boolean>((resolve) => streamed.socket.write(chunk, (error) => resolve(!error)));
      open &&= !streamed.answeredYet() && !streamed.socket.readableEnded;
      sent += 64 * 1024;
    }
    expect([413, undefined]).toContain((await streamed.answered).status);
    expect(sent).toBeLessThan(STREAMED_BYTES);
    expect(await refused(eventsUrl, 'too large')).toBe(before + 2);
  });

  it('refused from its headers with a megabyte of it already sent is refused and counted, answered 413 unless a reset overtakes it', async () => {
    const { eventsUrl } = await startApp();
    const before = await refused(eventsUrl, 'too large');

    // The app leaves the rest unread and destroys the connection once the answer is out. With the sender's bytes
    // still arriving, the reset that follows may reach the sender before the answer does, as when a body streams
    // past the limit; the refusal is counted either way.
    const declared = await forged(eventsUrl, { 'content-length': String(4 * MiB) }, Buffer.alloc(MiB, 'a'));
    expect([413, undefined]).toContain((await declared.answered).status);
    expect(await refused(eventsUrl, 'too large')).toBe(before + 1);
  });

  it('still arriving at its deadline is answered 408 and its connection closed', async () => {
    const { eventsUrl } = await startApp();
    const before = await refused(eventsUrl, 'too slow');
    const started = Date.now();

    const slow = await slowBody(eventsUrl);
    expect((await slow.answered).status).toBe(408);

    expect(Date.now() - started).toBeGreaterThanOrEqual(BODY_DEADLINE_MS);
    expect(await refused(eventsUrl, 'too slow')).toBe(before + 1);
    expect(await unproven(eventsUrl)).toBe(0);
  });

  it('past the cap on bodies read at once pushes out the longest-waiting one with 503, at once', async () => {
    const { eventsUrl } = await startApp();
    const before = await refused(eventsUrl, 'too many');
    const oldest = await slowBody(eventsUrl);
    await until(
      () => unproven(eventsUrl),
      (count) => count === 1,
      'the first body to be read',
    );
    const others = await Promise.all(Array.from({ length: UNPROVEN_BODIES_MAX - 1 }, () => slowBody(eventsUrl)));
    await until(
      () => unproven(eventsUrl),
      (count) => count === UNPROVEN_BODIES_MAX,
      'every place to be taken',
    );

    const newcomer = await slowBody(eventsUrl);
    const answer = await oldest.answered;

    expect(answer.status).toBe(503);
    expect(answer.head.toLowerCase()).toContain('retry-after: 1');
    // Answered before its deadline: the others, opened a moment after it, have no answer yet.
    expect(others.filter((other) => other.answeredYet())).toEqual([]);
    expect(await refused(eventsUrl, 'too many')).toBe(before + 1);
    expect(await unproven(eventsUrl)).toBe(UNPROVEN_BODIES_MAX);
    for (const request of [...others, newcomer]) request.socket.destroy();
  });
});

describe('a connection', () => {
  it('whose headers are still arriving after 5 seconds is answered 408 and closed', async () => {
    const { eventsUrl } = await startApp();
    const url = new URL(eventsUrl);
    const started = Date.now();
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
    socket.write(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nx-slack-signature: v0=`);

    await new Promise((resolve) => socket.once('close', resolve));

    expect(Buffer.concat(received).toString()).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECTION_LIMITS.headersTimeoutMs);
  });
});

/** GET /healthz on a connection of its own: its status, or 'dropped' when the app closed it without an answer. */
function healthz(base: URL): Promise<number | 'dropped'> {
  return new Promise((resolve) => {
    const socket = connect(Number(base.port), base.hostname);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(received).toString())?.[1];
      resolve(status === undefined ? 'dropped' : Number(status));
    });
    socket.write(`GET /healthz HTTP/1.1\r\nhost: ${base.host}\r\nconnection: close\r\n\r\n`);
  });
}

describe('connections past the cap', () => {
  it('are dropped while 2,048 are open, and answered again once fewer are', async () => {
    const { eventsUrl } = await startApp();
    const base = new URL(eventsUrl);
    const silent: Socket[] = [];
    try {
      for (let i = 0; i < CONNECTION_LIMITS.maxConnections; i += OPENING_AT_ONCE) {
        const wave = Array.from(
          { length: Math.min(OPENING_AT_ONCE, CONNECTION_LIMITS.maxConnections - i) },
          () =>
            new Promise<void>((resolve, reject) => {
              const socket = connect(Number(base.port), base.hostname, () => resolve());
              socket.once('error', reject);
              silent.push(socket);
            }),
        );
        await Promise.all(wave);
      }
      await until(
        () => healthz(base),
        (status) => status === 'dropped',
        'a connection past the cap to be dropped',
      );
    } finally {
      for (const socket of silent) socket.destroy();
    }
    await until(
      () => healthz(base),
      (status) => status === 200,
      'the app to answer again',
    );
  }, 60_000);
});

describe('1,000 forged bodies hanging', () => {
  it('are held no more than the cap allows, and a signed /voice help is answered through them', async () => {
    const { eventsUrl, pid } = await startApp();
    await help(eventsUrl, 'before-the-flood');
    const idle = rssOf(pid);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 20);

    const opened: RawRequest[] = [];
    try {
      for (let i = 0; i < ATTACKERS; i += OPENING_AT_ONCE) {
        const wave = Array.from({ length: Math.min(OPENING_AT_ONCE, ATTACKERS - i) }, () =>
          slowBody(eventsUrl, SENT_BYTES),
        );
        opened.push(...(await Promise.all(wave)));
      }
      await until(
        () => opened.filter((request) => request.closedYet()).length,
        (answered) => answered === ATTACKERS - UNPROVEN_BODIES_MAX,
        'every body past the cap to be refused',
        60_000,
      );
      expect(await unproven(eventsUrl)).toBe(UNPROVEN_BODIES_MAX);

      // While the last of them hang, another person's command is acknowledged and answered.
      await help(eventsUrl, 'through-the-flood');
      peak = Math.max(peak, rssOf(pid));

      // The rest end too: each pushed out with a 503 (unless its sender's bytes were still arriving, and the reset took
      // the answer), the last few at their deadline.
      const answers = await Promise.all(opened.map((request) => request.answered));
      const late = answers.filter((answer) => answer.status === 408);
      expect(late.length).toBeLessThanOrEqual(UNPROVEN_BODIES_MAX);
      expect(answers.filter((answer) => ![503, 408, undefined].includes(answer.status))).toEqual([]);
      expect((await refused(eventsUrl, 'too many')) + (await refused(eventsUrl, 'too slow'))).toBe(ATTACKERS);
    } finally {
      clearInterval(sampler);
      for (const request of opened) request.socket.destroy();
    }
    // Held whole, the bodies would take ATTACKERS × SENT_BYTES (500 MiB); the cap holds 8 of them. What memory the
    // process took is also the garbage of 500 MiB read and let go, collected at V8's pace: bench/ measures it.
    expect((peak - idle) / MiB).toBeLessThan((ATTACKERS * SENT_BYTES) / MiB / 2);
  }, 120_000);
});
