// Acknowledgement latency, throughput and CPU per command, for the two floors and for Voice Ops on commands that take
// its real path: `/voice help` (role lookup, help built, carried in the ack: it waits on no I/O) and `/voice agents`
// (a bare ack, a provider call to the sandbox, then the post to the response_url), each on SQLite and, when Postgres
// is installed, on a Postgres database over loopback. The work after an ack runs on the same event loop as the next
// acks.
// - Closed loop at concurrency 1, 16 and 64: as fast as the app answers; the targets are checked here, against the
//   floor of any Bolt app that answers: a bare Bolt app that acknowledges, then replies through respond(). Bare Bolt
//   that only acknowledges is the floor of the acknowledgement alone, reported as a figure.
// - A diagnostic row per concurrency: Voice Ops on repeated deliveries (one trigger_id), which the app drops right
//   after the ack: its own ack path (signature, Bolt, the delivery check in SQLite) with no work after it.
// - Open loop (bench/paced.ts): commands at a steady 200 per second, well under every app's capacity: the ack
//   latency when a command seldom arrives while the app is still busy with the previous one.
// - Closed loops run in interleaved repetitions (every app once, then every app again, …), each row the median of its
//   repetitions with their spread, and each ratio the median of the ratios within a repetition: a slow moment of the
//   machine hits an app and its floor alike. A floor whose CPU per command moved by more than FLOOR_DRIFT between
//   repetitions is flagged, as the ratios judged against it are then less to be trusted.
import type { AppKind } from './app-process.js';
import { type Driven, drive, type Session } from './session.js';
import { median } from './stats.js';

/** A floor moving by more than this share of its lowest CPU per command between repetitions is flagged. */
export const FLOOR_DRIFT = 0.25;

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
  /** A closed loop's repetitions: how many, and the spread of what they measured. */
  repetitions?: Repetitions;
}

/** The lowest and highest of a measure over the repetitions; the row holds their median. */
export interface Range {
  min: number;
  max: number;
}

export interface Repetitions {
  count: number;
  cpu: Range;
  /** The ratios to the floor that also answers, one per repetition. */
  toRespondFloor?: { cpu: Range; p99: Range };
  /** The floor's CPU per command moved by more than FLOOR_DRIFT between repetitions: its ratios are less sure. */
  floorMoved?: number;
}

const rangeOf = (values: number[]): Range => ({ min: Math.min(...values), max: Math.max(...values) });

/** How far a measure moved between repetitions, as a share of its lowest value. */
export const drift = ({ min, max }: Range): number => max / min - 1;

export async function measureAcks(
  session: Session,
  options: { seconds: number; warmupSeconds: number; repetitions: number; log: (line: string) => void },
): Promise<AckRow[]> {
  const rows: AckRow[] = [];
  const shapes = [
    ...CONCURRENCIES.map((connections) => ({ loop: 'closed' as const, connections, rate: undefined })),
    { loop: 'open' as const, connections: OPEN_LOOP.connections, rate: OPEN_LOOP.rate },
  ];
  for (const shape of shapes) {
    const targets = ACK_TARGETS.filter(
      (target) =>
        (target.engine !== 'postgres' || session.voicePostgres) &&
        (shape.loop === 'open'
          ? target.kind !== 'bare-respond' && !target.repeat
          : !target.skip?.includes(shape.connections)),
    );
    // The open loop paces its commands, so one run says what it measures; a closed loop is repeated, interleaved.
    const repetitions = shape.loop === 'open' ? 1 : Math.max(1, options.repetitions);
    const runs = new Map<AckTarget, Driven[]>(targets.map((target) => [target, []]));
    for (let repetition = 0; repetition < repetitions; repetition++) {
      for (const target of targets) {
        const run = await drive(session, {
          kind: target.kind,
          app: target.engine === 'postgres' ? session.voicePostgres : undefined,
          text: target.text,
          connections: shape.connections,
          rate: shape.rate,
          // Half a run each: five repetitions take what two and a half whole runs took.
          seconds: repetitions > 1 ? options.seconds / 2 : options.seconds,
          // The connections are warmed anew for each run; the app stays warm between repetitions.
          warmupSeconds: repetition === 0 ? options.warmupSeconds : options.warmupSeconds / 3,
          repeatTriggerId: target.repeat,
        });
        runs.get(target)?.push(run);
        const failed = run.non2xx + run.errors + run.timeouts;
        options.log(
          `  ${shape.loop === 'open' ? `${shape.rate}/s over ${shape.connections}` : `c=${shape.connections}`}` +
            `${repetitions > 1 ? ` (${repetition + 1}/${repetitions})` : ''} ${target.label}: ` +
            `p50 ${run.latency.p50.toFixed(2)} ms, p99 ${run.latency.p99.toFixed(2)} ms, ${Math.round(run.rps)} req/s, ` +
            `${run.appCpuMsPerCommand.toFixed(3)} ms CPU/cmd, ${failed} failed`,
        );
      }
    }
    const of = (kind: AppKind) => [...runs].find(([target]) => target.kind === kind)?.[1];
    const bare = of('bare');
    const respondFloor = of('bare-respond');
    const floorCpu = respondFloor && rangeOf(respondFloor.map((run) => run.appCpuMsPerCommand));
    const floorMoved = floorCpu && repetitions > 1 && drift(floorCpu) > FLOOR_DRIFT ? drift(floorCpu) : undefined;
    for (const target of targets) {
      rows.push(
        rowOf(target, shape, runs.get(target) ?? [], {
          bare: bare ?? runs.get(target) ?? [],
          respondFloor: target.kind === 'voice' && !target.repeat ? respondFloor : undefined,
          floorMoved,
        }),
      );
    }
  }
  return rows;
}

/** A target's row: its median repetition's figures, the median of its ratios, and their spread. */
function rowOf(
  target: AckTarget,
  shape: { loop: 'closed' | 'open'; connections: number; rate?: number },
  runs: Driven[],
  floors: { bare: Driven[]; respondFloor?: Driven[]; floorMoved?: number },
): AckRow {
  const cpu = runs.map((run) => run.appCpuMsPerCommand);
  const middle = runs.toSorted((a, b) => a.appCpuMsPerCommand - b.appCpuMsPerCommand)[
    Math.floor((runs.length - 1) / 2)
  ];
  if (!middle) throw new Error(`no run of ${target.label}`);
  const ratios = (floor: Driven[], measure: (run: Driven) => number) =>
    runs.map((run, index) => measure(run) / measure(floor[index] ?? run));
  const p99 = (run: Driven) => run.latency.p99;
  const cpuOf = (run: Driven) => run.appCpuMsPerCommand;
  const toFloor = floors.respondFloor && {
    cpu: ratios(floors.respondFloor, cpuOf),
    p99: ratios(floors.respondFloor, p99),
  };
  return {
    ...middle,
    label: target.label,
    engine: target.kind === 'voice' ? (target.engine ?? 'sqlite') : undefined,
    loop: shape.loop,
    target: target.target && shape.loop === 'closed',
    p99Ratio: median(ratios(floors.bare, p99)),
    ...(toFloor ? { toRespondFloor: { p99: median(toFloor.p99), cpu: median(toFloor.cpu) } } : {}),
    ...(runs.length > 1
      ? {
          repetitions: {
            count: runs.length,
            cpu: rangeOf(cpu),
            ...(toFloor ? { toRespondFloor: { cpu: rangeOf(toFloor.cpu), p99: rangeOf(toFloor.p99) } } : {}),
            ...(floors.floorMoved === undefined ? {} : { floorMoved: floors.floorMoved }),
          },
        }
      : {}),
  };
}
