import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/log.js';
import { logDestination } from '../src/log-destination.js';
import { readableLines } from '../src/log-lines.js';
import { boltLogger } from '../src/slack/bolt-logger.js';
import { until } from './hardening/support.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => lines.join('') };
}

describe('log redaction', () => {
  it('censors secrets by key, at the top level and nested', () => {
    const out = capture();
    const logger = createLogger('debug', out.stream);
    logger.info({ agent_token: 'atk_top', apiKey: 'key_top' }, 'top');
    logger.info({ agent: { agent_token: 'atk_nested' }, headers: { authorization: 'Bearer key_nested' } }, 'nested');
    logger.info({ slack: { botToken: 'xoxb-1', appToken: 'xapp-1', signingSecret: 'sig' } }, 'slack');
    logger.info({ interactor: { id: 'U1', secret: 'shallow_secret' } }, 'step');
    const secrets = ['atk_top', 'key_top', 'atk_nested', 'key_nested', 'xoxb-1', 'xapp-1', 'sig"', 'shallow_secret'];
    for (const secret of secrets) expect(out.text()).not.toContain(secret);
    expect(out.text().match(/\[redacted\]/g)?.length).toBe(8);
  });

  it("scrubs Slack tokens from Bolt's free text and drops its body and Socket Mode message dumps", () => {
    const out = capture();
    const bolt = boltLogger(createLogger('debug', out.stream));
    bolt.warn('token xoxb-123-456-abc was rejected');
    bolt.debug('http request body: {"view":{"blocks":"atk_secret"}}');
    bolt.debug('http request result: {"view":"atk_secret"}');
    bolt.debug('Received a message on the WebSocket: {"payload":{"text":"atk_secret"}}');
    bolt.debug('Calling ack() - type: interactive, envelope_id: 1, data: {"view":"atk_secret"}');
    bolt.debug('Sending a WebSocket message: {"envelope_id":"1","payload":{"view":"atk_secret"}}');
    bolt.debug('apiCall start');
    expect(out.text()).toContain('token [redacted] was rejected');
    expect(out.text()).toContain('apiCall start');
    expect(out.text()).not.toContain('xoxb-123');
    expect(out.text()).not.toContain('atk_secret');
  });
});

describe('readable log lines, for a terminal', () => {
  it('writes time, level, message and fields on one line, and an error’s stack below it, with secrets redacted', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', readableLines({ write: (text: string) => lines.push(text) }));
    logger.info({ url: 'http://127.0.0.1:3000/', token: 'xoxb-secret' }, 'Playground: open http://127.0.0.1:3000/');
    logger.error({ err: new Error('it broke') }, 'a request failed');
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d INFO {2}Playground: open http:\/\/127\.0\.0\.1:3000\/ url="http:\/\/127\.0\.0\.1:3000\/" token="\[redacted\]"\n$/,
    );
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d ERROR a request failed\nError: it broke\n {4}at /);
    expect(lines.join('')).not.toContain('"level"');
  });
});

describe('a log pipe whose reader stalls', () => {
  const MIB = 1024 * 1024;
  // What the pipe itself holds (64 KiB on Linux), given generously: a kernel may size pipes larger.
  const PIPE_ROOM = 256 * 1024;
  const LINE = `${'x'.repeat(1023)}\n`;

  it('holds back at most 1 MiB of lines, drops and counts the rest, and writes every line it took', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'voice-ops-log-'));
    const fifo = join(dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const destination = logDestination(openSync(fifo, constants.O_WRONLY));
    try {
      const sent = 3 * 1024;
      for (let line = 0; line < sent; line++) destination.write(LINE);
      const taken = sent - destination.dropped();
      expect(taken * LINE.length).toBeGreaterThanOrEqual(MIB);
      expect(taken * LINE.length).toBeLessThanOrEqual(MIB + PIPE_ROOM);

      // Read at last, the pipe gives every line taken, whole, and nothing of those dropped.
      const buffer = Buffer.alloc(MIB);
      const chunks: Buffer[] = [];
      const readable = () => {
        for (;;) {
          try {
            const read = readSync(reader, buffer);
            if (read === 0) break;
            chunks.push(Buffer.from(buffer.subarray(0, read)));
          } catch (error) {
            if ((error as { code?: string }).code === 'EAGAIN') break;
            throw error;
          }
        }
        return chunks.reduce((total, chunk) => total + chunk.length, 0);
      };
      await until(readable, (bytes) => bytes >= taken * LINE.length, 'the lines taken to reach the pipe');
      await destination.flush(5_000);
      expect(readable()).toBe(taken * LINE.length);
      expect(Buffer.concat(chunks).toString()).toBe(LINE.repeat(taken));
    } finally {
      closeSync(reader);
      // A line to a pipe with no reader ends the destination, which closes its end.
      destination.write(LINE);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
