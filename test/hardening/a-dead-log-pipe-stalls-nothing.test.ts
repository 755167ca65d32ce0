// The app's process with its stdout a pipe whose reader stalls, then goes away, as a log shipper does when it
// restarts: while the pipe is full the app still answers; the lines it cannot write are dropped and counted in
// /metrics; and SIGTERM ends the process by itself within SHUTDOWN_TIMEOUT_MS (exit 0: the stop's own deadline, which
// exits 1, never fired). The pipe is a FIFO that the test holds open and never reads until it has proven the stall.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { BOT_TOKEN, SIGNING_SECRET } from '../harness/app.js';
import { appEnvironment, REPO } from '../harness/app-process.js';
import { metricValue } from '../harness/metrics.js';
import { freePort, useProcessBed } from './process-support.js';
import { until } from './support.js';

const PIPE_CAPACITY = 65_536;
// A write of up to PIPE_BUF bytes goes in whole or not at all: a full pipe may have less than that free.
const PIPE_BUF = 4_096;
const bed = useProcessBed('voice-ops-log-pipe-', [BOT_TOKEN, SIGNING_SECRET]);

/** Reads what the pipe holds, without waiting for more; the number of bytes. */
function drain(fd: number): number {
  const buffer = Buffer.alloc(PIPE_CAPACITY);
  let total = 0;
  for (;;) {
    try {
      const read = readSync(fd, buffer);
      if (read === 0) return total;
      total += read;
    } catch (error) {
      if ((error as { code?: string }).code === 'EAGAIN') return total;
      throw error;
    }
  }
}

describe('a log pipe that stalls, then closes', () => {
  it('never stops the app from answering, and never stops it from stopping', async () => {
    const fifo = join(bed.dir, 'stdout');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    let child: ChildProcess | undefined;
    let readerOpen = true;
    const keepAlive = new Agent({ connections: 4 });
    try {
      child = spawn(process.execPath, [join(REPO, 'dist', 'main.js')], {
        cwd: REPO,
        env: {
          ...appEnvironment(bed.slack, bed.sandbox, bed.database.env),
          PORT: String(port),
          SHUTDOWN_TIMEOUT_MS: '5000',
        },
        stdio: ['ignore', writer, 'pipe'],
      });
      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        child?.once('exit', (code, signal) => resolve({ code, signal })),
      );
      closeSync(writer);
      await until(
        async () => (await request(`${url}/readyz`).catch(() => undefined))?.statusCode,
        (status) => status === 200,
        'the app to be ready',
      );

      // Each refused request logs a line: far more than the pipe holds, none of it read.
      for (let sent = 0; sent < 1_500; sent += 50) {
        await Promise.all(
          Array.from({ length: 50 }, async () => {
            const answer = await request(`${url}/slack/events`, { method: 'POST', body: 'x', dispatcher: keepAlive });
            await answer.body.dump();
            expect(answer.statusCode).toBe(401);
          }),
        );
      }
      const alive = await request(`${url}/healthz`);
      expect([alive.statusCode, await alive.body.text()]).toEqual([200, '{"ok":true}']);
      // The pipe was full all along: whatever the app wrote, it wrote without waiting for it to be read.
      expect(drain(reader)).toBeGreaterThan(PIPE_CAPACITY - PIPE_BUF);

      // The reader goes away: further lines are dropped, and counted.
      closeSync(reader);
      readerOpen = false;
      for (let sent = 0; sent < 20; sent += 1) {
        await (await request(`${url}/slack/events`, { method: 'POST', body: 'x', dispatcher: keepAlive })).body.dump();
      }
      expect(await metricValue(url, 'voice_ops_log_lines_dropped_total')).toBeGreaterThanOrEqual(20);

      child.kill('SIGTERM');
      expect(await exited).toEqual({ code: 0, signal: null });
    } finally {
      await keepAlive.close();
      if (readerOpen) closeSync(reader);
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
