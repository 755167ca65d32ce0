// The closed-loop load generator: autocannon over loopback, each connection sending its next command when the
// previous one is answered (bench/paced.ts is the open loop). Every request is a distinct slash
// command, as from Slack: its own trigger_id (the app drops a repeated delivery right after acknowledging it, so
// a fixed body would measure the drop, not the command) and its own fresh signature.
//
// Latencies come from autocannon's per-response event, in fractions of a millisecond (its histogram keeps whole
// milliseconds, too coarse for a sub-millisecond ack). A timed run starts with a warm-up on the same connections
// and counts only the commands sent after it: when 64 connections open at once, the server takes up the new ones
// about one per turn of its event loop, so their first commands wait up to a second on a busy app; that start-up
// queue is a property of the run, not of the app's steady state (it is reported separately).
import autocannon from 'autocannon';
import { slashCommand } from '../test/harness/payloads.js';
import { signSlackRequest } from '../test/harness/signing.js';
import { type Distribution, distribution } from './stats.js';

export interface LoadOptions {
  /** The app's base URL; commands go to `${url}/slack/events`. */
  url: string;
  connections: number;
  /** Seconds measured after the warm-up; or `amount`. */
  seconds?: number;
  /** Seconds of load before the measured window, on the same connections. */
  warmupSeconds?: number;
  /** Instead of a time window: exactly this many commands, all counted. */
  amount?: number;
  /** The `/voice` command's text, e.g. `help`. */
  text: string;
  userId: string;
  responseUrl: string;
  signingSecret: string;
  /** Every command carries the same trigger_id: after the first, the app sees repeats and drops them after the ack. */
  repeatTriggerId?: boolean;
}

export interface LoadResult {
  connections: number;
  rate?: number;
  /** 2xx answers counted (in the window). */
  ok: number;
  /** 2xx answers in the whole run, warm-up included: what the app had to do. */
  okTotal: number;
  /** Of those, acks that carried the command's reply (whole run): no response_url post follows them. */
  answeredInAck: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  /** Counted 2xx answers per second of the window. */
  rps: number;
  /** Time from sending a command to its whole HTTP answer (the ack), ms. */
  latency: Distribution;
  /** The slowest answer to a command sent during the warm-up (the start-up queue of new connections), ms. */
  warmupMax: number;
}

// Time for the commands sent at the end of the window to be answered before the run stops.
const TAIL_SECONDS = 0.5;

let sequence = 0;

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const batch = `${Date.now()}.${process.pid}.${++sequence}`;
  let n = 0;
  const setupRequest = (request: autocannon.Request): autocannon.Request => {
    const body = slashCommand({
      text: options.text,
      userId: options.userId,
      triggerId: options.repeatTriggerId ? `${batch}.repeated` : `${batch}.${++n}`,
      responseUrl: options.responseUrl,
    });
    return { ...request, body, headers: { ...signSlackRequest(options.signingSecret, body) } };
  };

  const timed = options.amount === undefined;
  const warmupMs = timed ? (options.warmupSeconds ?? 0) * 1000 : 0;
  const windowMs = timed ? (options.seconds ?? 5) * 1000 : Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  let okTotal = 0;
  let answeredInAck = 0;
  let non2xx = 0;
  let warmupMax = 0;
  // A bare ack has an empty body; one with a body carries the reply.
  const onResponse = (status: number, body: string) => {
    if (status >= 200 && status < 300 && body.length > 0) answeredInAck++;
  };

  return new Promise<LoadResult>((resolve, reject) => {
    let startedAt = performance.now();
    const instance = autocannon(
      {
        url: `${options.url}/slack/events`,
        connections: options.connections,
        ...(timed ? { duration: (warmupMs + windowMs) / 1000 + TAIL_SECONDS } : { amount: options.amount }),
        timeout: 10,
        requests: [{ method: 'POST', path: '/slack/events', setupRequest, onResponse }],
      },
      (error, result) => {
        if (error) return reject(error);
        const seconds = timed ? windowMs / 1000 : (performance.now() - startedAt) / 1000;
        resolve({
          connections: options.connections,
          ok: latencies.length,
          okTotal,
          answeredInAck,
          non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          seconds,
          rps: latencies.length / seconds,
          latency: distribution(latencies),
          warmupMax,
        });
      },
    );
    instance.on('start', () => {
      startedAt = performance.now();
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 200 || statusCode >= 300) {
        non2xx++;
        return;
      }
      okTotal++;
      const sentAt = performance.now() - startedAt - responseTime;
      if (sentAt < warmupMs) warmupMax = Math.max(warmupMax, responseTime);
      else if (sentAt < warmupMs + windowMs) latencies.push(responseTime);
    });
  });
}
