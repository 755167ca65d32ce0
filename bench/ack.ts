// Acknowledgement latency, throughput and CPU per command, for the two floors and for Voice Ops on commands that take
// its real path: `/voice help` (role lookup, help built, posted to the response_url) and `/voice agents` (a provider
// call to the sandbox, then the post), each on SQLite and, when Postgres is installed, on a Postgres database over
// loopback. Bolt acknowledges before that work, but the work runs on the same event loop as the next acks.
// - Closed loop at concurrency 1, 16 and 64: as fast as the app answers; the targets are checked here, against the
//   floor of any Bolt app that answers: a bare Bolt app that acknowledges, then replies through respond(). Bare Bolt
//   that only acknowledges is the floor of the acknowledgement alone, reported as a figure.
// - A diagnostic row per concurrency: Voice Ops on repeated deliveries (one trigger_id), which the app drops right
//   after the ack: its own ack path (signature, Bolt, the delivery check in SQLite) with no work after it.
// - Open loop (bench/paced.ts): commands at a steady 200 per second, well under every app's capacity: the ack
//   latency when a command seldom arrives while the app is still busy with the previous one.
// Apps alternate within each concurrency, so drift in the machine's speed hits them alike.
import type { AppKind } from './app-process.js';
import { type Driven, drive, type Session } from './session.js';

export const CONCURRENCIES = [1, 16, 64] as const;
export const OPEN_LOOP = { rate: 200, connections: 16 } as const; // 16 keep-alive connections at most

export type Engine = 'sqlite' | 'postgres';

export interface AckTarget {
  label: string;
  kind: AppKind;
  text: string;
  /** Voice Ops' database (SQLite unless given). */
  engine?: Engine;
  /** Checked against the targets (the diagnostic row is not). */
  target: boolean;
  repeat?: boolean;
  /** Left out of the open-loop rows and of the runs at these concurrencies. */
  skip?: readonly number[];
}

export const ACK_TARGETS: readonly AckTarget[] = [
  { label: 'bare Bolt (ack only)', kind: 'bare', text: 'help', target: false },
  { label: 'bare Bolt + respond()', kind: 'bare-respond', text: 'help', target: false },
  { label: 'Voice Ops /voice help', kind: 'voice', text: 'help', target: true },
  { label: 'Voice Ops /voice agents', kind: 'voice', text: 'agents', target: true },
  { label: 'Voice Ops /voice help, Postgres', kind: 'voice', text: 'help', target: true, engine: 'postgres' },
  { label: 'Voice Ops /voice agents, Postgres', kind: 'voice', text: 'agents', target: true, engine: 'postgres' },
  { label: 'Voice Ops, repeats (ack path only)', kind: 'voice', text: 'help', target: false, repeat: true, skip: [64] },
];

export interface AckRow extends Driven {
  label: string;
  engine?: Engine;
  /** `closed` (as fast as answered) or `open` (fixed rate). */
  loop: 'closed' | 'open';
  target: boolean;
  /** This row's p99 over the bare app's in the same run shape (1 for the bare app itself). */
  p99Ratio: number;
  /** Over the floor that also answers (bare Bolt + respond()), when measured in the same run shape. */
  toRespondFloor?: { p99: number; cpu: number };
}

export async function measureAcks(
  session: Session,
  options: { seconds: number; warmupSeconds: number; log: (line: string) => void },
): Promise<AckRow[]> {
  const rows: AckRow[] = [];
  const shapes = [
    ...CONCURRENCIES.map((connections) => ({ loop: 'closed' as const, connections, rate: undefined })),
    { loop: 'open' as const, connections: OPEN_LOOP.connections, rate: OPEN_LOOP.rate },
  ];
  for (const shape of shapes) {
    let bare: Driven | undefined;
    let respondFloor: Driven | undefined;
    const targets = ACK_TARGETS.filter(
      (target) =>
        (target.engine !== 'postgres' || session.voicePostgres) &&
        (shape.loop === 'open'
          ? target.kind !== 'bare-respond' && !target.repeat
          : !target.skip?.includes(shape.connections)),
    );
    for (const target of targets) {
      const run = await drive(session, {
        kind: target.kind,
        app: target.engine === 'postgres' ? session.voicePostgres : undefined,
        text: target.text,
        connections: shape.connections,
        rate: shape.rate,
        seconds: options.seconds,
        warmupSeconds: options.warmupSeconds,
        repeatTriggerId: target.repeat,
      });
      if (target.kind === 'bare') bare = run;
      if (target.kind === 'bare-respond') respondFloor = run;
      const floor = bare ?? run;
      rows.push({
        ...run,
        label: target.label,
        engine: target.kind === 'voice' ? (target.engine ?? 'sqlite') : undefined,
        loop: shape.loop,
        target: target.target && shape.loop === 'closed',
        p99Ratio: run.latency.p99 / floor.latency.p99,
        ...(respondFloor && target.kind === 'voice' && !target.repeat
          ? {
              toRespondFloor: {
                p99: run.latency.p99 / respondFloor.latency.p99,
                cpu: run.appCpuMsPerCommand / respondFloor.appCpuMsPerCommand,
              },
            }
          : {}),
      });
      const failed = run.non2xx + run.errors + run.timeouts;
      options.log(
        `  ${shape.loop === 'open' ? `${shape.rate}/s over ${shape.connections}` : `c=${shape.connections}`} ` +
          `${target.label}: p50 ${run.latency.p50.toFixed(2)} ms, p99 ${run.latency.p99.toFixed(2)} ms, ` +
          `${Math.round(run.rps)} req/s, ${failed} failed`,
      );
    }
  }
  return rows;
}
