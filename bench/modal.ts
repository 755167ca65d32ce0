// Time from a command to the views.open call at the fake Slack, with the provider answering at once and with
// 2 seconds of added latency. A trigger_id is good for 3 seconds, so the modal must open before any provider
// call: `/voice map` opens a loading modal and fills it in from two provider lists; `/voice numbers search`
// (no region) opens the region picker. Commands are sent a little apart without waiting for each other, as a
// few users would; the fill time of the map modal is reported too.
import { ADMIN, SIGNING_SECRET } from './constants.js';
import type { Session } from './session.js';
import { type Distribution, distribution, sleep } from './stats.js';
import type { ModalTiming } from './stubs-process.js';

export const PROVIDER_LATENCIES_MS = [0, 2000] as const;

export interface ModalRow {
  command: string;
  providerLatencyMs: number;
  samples: number;
  open: Distribution;
  ack: Distribution;
  /** Loading modal replaced by the filled one (map only), ms after the command. */
  filled?: Distribution;
  unfilled: number;
}

const COMMANDS = [
  { text: 'map', samples: 8, fills: true },
  { text: 'numbers search', samples: 6, fills: false },
] as const;

let channel = 0;

export async function measureModals(session: Session, options: { gapMs: number }): Promise<ModalRow[]> {
  const rows: ModalRow[] = [];
  const eventsUrl = `${session.apps.voice.ready.url}/slack/events`;
  try {
    for (const latency of PROVIDER_LATENCIES_MS) {
      await session.stubs.request({ op: 'latency', ms: latency });
      for (const command of COMMANDS) {
        const pending: Promise<ModalTiming>[] = [];
        for (let i = 0; i < command.samples; i++) {
          pending.push(
            session.stubs.request<ModalTiming>({
              op: 'modal',
              eventsUrl,
              signingSecret: SIGNING_SECRET,
              text: command.text,
              userId: ADMIN,
              channelId: `CBENCH${++channel}`,
              waitForFill: command.fills,
              timeoutMs: 20_000,
            }),
          );
          await sleep(options.gapMs);
        }
        const timings = await Promise.all(pending);
        const fills = timings.flatMap((timing) => (timing.filledMs === undefined ? [] : [timing.filledMs]));
        rows.push({
          command: `/voice ${command.text}`,
          providerLatencyMs: latency,
          samples: timings.length,
          open: distribution(timings.map((timing) => timing.openMs)),
          ack: distribution(timings.map((timing) => timing.ackMs)),
          ...(command.fills ? { filled: distribution(fills) } : {}),
          unfilled: command.fills ? timings.length - fills.length : 0,
        });
      }
    }
  } finally {
    await session.stubs.request({ op: 'latency', ms: 0 });
  }
  return rows;
}
