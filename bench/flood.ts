// Acknowledgements through a flood: signed `/voice help` commands at a steady 20 a second (bench/paced.ts) while 32
// unsigned 3 MB bodies are always on their way to the same port, each on a connection of its own, as a flood from the
// internet would come. The flood comes from a process of its own (bench/flood-process.ts). The app refuses each from
// its headers, before reading it; the figure is the signed commands' ack p50 / p99 / max, and how many flooding
// requests were sent and refused.
import { ADMIN, SIGNING_SECRET } from './constants.js';
import { spawnChild } from './ipc.js';
import { runPaced } from './paced.js';
import type { Session } from './session.js';
import type { Distribution } from './stats.js';

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
  const flooder = await spawnChild<Record<string, never>>('bench/flood-process.ts', []);
  try {
    await flooder.request({ op: 'start', url });
    const commands = await runPaced({
      url,
      connections: 4,
      seconds: options.seconds * 2,
      warmupSeconds: 0.5,
      rate: RATE,
      text: 'help',
      userId: ADMIN,
      responseUrl: session.stubs.ready.responseUrl,
      signingSecret: SIGNING_SECRET,
    });
    const flood = await flooder.request<FloodResult['flood']>({ op: 'halt' }, 60_000);
    return { flood, acks: commands.latency, acked: commands.ok, failed: commands.non2xx + commands.errors };
  } finally {
    await flooder.stop();
  }
}
