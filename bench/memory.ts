// Resident memory of an app's process across 20,000 commands, each sample taken after a full GC and a pause (the
// apps run with --expose-gc). The baseline is taken after a warm-up, so that what the first commands load once
// (code compiled, modules and caches filled) is not counted as growth; the figure at start is reported as well,
// and one halfway, which tells a plateau from a steady climb.
import type { AppKind, MemorySample } from './app-process.js';
import { drive, type Session } from './session.js';

export interface MemoryResult {
  kind: AppKind;
  text: string;
  commands: number;
  warmupCommands: number;
  atStart: MemorySample;
  afterWarmup: MemorySample;
  halfway: MemorySample;
  after: MemorySample;
  /** rss after the commands minus rss after the warm-up, bytes. */
  rssGrowth: number;
  heapGrowth: number;
  /** Commands whose reply reached the person, posted or in the ack (voice only), out of `commands`. */
  delivered: number;
  failed: number;
}

export async function measureMemory(
  session: Session,
  kind: AppKind,
  options: { commands: number; warmupCommands: number; connections: number; text: string },
): Promise<MemoryResult> {
  const app = session.apps[kind];
  const sample = () => app.request<MemorySample>({ op: 'memory' });
  const atStart = await sample();
  await drive(session, {
    kind,
    text: options.text,
    connections: options.connections,
    amount: options.warmupCommands,
  });
  const afterWarmup = await sample();
  const half = Math.floor(options.commands / 2);
  const first = await drive(session, { kind, text: options.text, connections: options.connections, amount: half });
  const halfway = await sample();
  const second = await drive(session, {
    kind,
    text: options.text,
    connections: options.connections,
    amount: options.commands - half,
  });
  const after = await sample();
  return {
    kind,
    text: options.text,
    commands: options.commands,
    warmupCommands: options.warmupCommands,
    atStart,
    afterWarmup,
    halfway,
    after,
    rssGrowth: after.rss - afterWarmup.rss,
    heapGrowth: after.heapUsed - afterWarmup.heapUsed,
    delivered: first.delivered + second.delivered,
    failed: [first, second].reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0),
  };
}
