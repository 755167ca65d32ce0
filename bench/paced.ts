// An open-loop load: commands sent at a steady pace (one every 1000/rate ms, whatever the answers' pace) over a
// keep-alive pool, as Slack's deliveries arrive independently of each other. Unlike the closed loop, a command
// does not wait for the previous one's answer, and, at a rate well below the app's capacity, seldom finds the
// app still busy with the previous one's work. (autocannon's own rate limit sends each second's quota in a burst,
// which is a closed loop again, hence this.)
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { slashCommand } from '../test/harness/payloads.js';
import { signSlackRequest } from '../test/harness/signing.js';
import type { LoadOptions, LoadResult } from './load.js';
import { distribution } from './stats.js';

let sequence = 0;

/** `until`: sending stops once it settles (or after `seconds`, whichever comes first): a load beside some other work. */
export async function runPaced(options: LoadOptions & { rate: number; until?: Promise<unknown> }): Promise<LoadResult> {
  const batch = `${Date.now()}.${process.pid}.paced${++sequence}`;
  const pool = new Pool(options.url, { connections: options.connections });
  const warmup = Math.round(options.rate * (options.warmupSeconds ?? 0));
  const total = warmup + Math.round(options.rate * (options.seconds ?? 5));
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let okTotal = 0;
  let answeredInAck = 0;
  let non2xx = 0;
  let errors = 0;
  let warmupMax = 0;

  const send = (index: number) => {
    const body = slashCommand({
      text: options.text,
      userId: options.userId,
      triggerId: `${batch}.${index}`,
      responseUrl: options.responseUrl,
    });
    const headers = signSlackRequest(options.signingSecret, body);
    const sentAt = performance.now();
    pending.push(
      pool
        .request({ path: '/slack/events', method: 'POST', headers, body })
        .then(async (response) => {
          const reply = await response.body.text();
          const ms = performance.now() - sentAt;
          if (response.statusCode < 200 || response.statusCode >= 300) {
            non2xx++;
            return;
          }
          okTotal++;
          if (reply.length > 0) answeredInAck++;
          if (index < warmup) warmupMax = Math.max(warmupMax, ms);
          else latencies.push(ms);
        })
        .catch(() => {
          errors++;
        }),
    );
  };

  const started = performance.now();
  let sent = 0;
  let settled = false;
  const settle = () => {
    settled = true;
  };
  options.until?.then(settle, settle);
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * options.rate) + 1);
      while (sent < due) send(sent++);
      if (sent >= total || settled) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(pending);
  await pool.close();
  const seconds = (sent - warmup) / options.rate;
  return {
    connections: options.connections,
    rate: options.rate,
    ok: latencies.length,
    okTotal,
    answeredInAck,
    non2xx,
    errors,
    timeouts: 0,
    seconds,
    rps: latencies.length / seconds,
    latency: distribution(latencies),
    warmupMax,
  };
}
