// Acknowledgements through a flood: signed `/voice help` commands at a steady 20 a second (bench/paced.ts) while 32
// unsigned 3 MB bodies are always on their way to the same port, each on a connection of its own, as a flood from the
// internet would come. The app refuses each from its headers, before reading it; the figure is the signed commands'
// ack p50 / p99 / max, and how many flooding requests were sent and refused.
import { Agent, request } from 'undici';
import { ADMIN, SIGNING_SECRET } from './constants.js';
import { runPaced } from './paced.js';
import type { Session } from './session.js';
import type { Distribution } from './stats.js';

const BODY = Buffer.alloc(3 * 1024 * 1024, '[');
const IN_FLIGHT = 32;
const RATE = 20;

export interface FloodResult {
  /** Flooding requests sent, and those answered 401 (the rest were cut off by the app's answer mid-body). */
  flood: { sent: number; refused: number; cut: number };
  /** The signed commands' acknowledgements. */
  acks: Distribution;
  acked: number;
  failed: number;
}

export async function measureFlood(session: Session, options: { seconds: number }): Promise<FloodResult> {
  const url = session.apps.voice.ready.url;
  const fresh = new Agent({ pipelining: 0, connections: IN_FLIGHT });
  const flood = { sent: 0, refused: 0, cut: 0 };
  let flooding = true;
  const floodOne = async (): Promise<void> => {
    while (flooding) {
      flood.sent++;
      try {
        const answer = await request(`${url}/slack/events`, {
          method: 'POST',
          body: BODY,
          headers: { 'content-type': 'application/json', connection: 'close' },
          dispatcher: fresh,
        });
        await answer.body.dump();
        if (answer.statusCode === 401) flood.refused++;
      } catch {
        flood.cut++;
      }
    }
  };
  const floods = Array.from({ length: IN_FLIGHT }, floodOne);
  const commands = await runPaced({
    url,
    connections: 4,
    seconds: options.seconds,
    warmupSeconds: 0.5,
    rate: RATE,
    text: 'help',
    userId: ADMIN,
    responseUrl: session.stubs.ready.responseUrl,
    signingSecret: SIGNING_SECRET,
  });
  flooding = false;
  await Promise.all(floods);
  await fresh.close();
  return { flood, acks: commands.latency, acked: commands.ok, failed: commands.non2xx + commands.errors };
}
