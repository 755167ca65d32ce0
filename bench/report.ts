// The printed tables and the PASS/MISS targets, from the measurements' results.
import type { AckRow } from './ack.js';
import type { AuditResult } from './audit.js';
import { type BatchResult, batchTargets, renderBatch } from './batch.js';
import { SCALE } from './constants.js';
import type { EnginesOutcome, EnginesResult } from './engines.js';
import type { ListRow } from './lists.js';
import type { MemoryResult } from './memory.js';
import type { ModalRow } from './modal.js';
import type { StartupResult } from './startup.js';
import { type Distribution, MB } from './stats.js';

export interface Target {
  name: string;
  limit: string;
  measured: string;
  pass: boolean;
}

export interface Results {
  ack: AckRow[];
  memory: MemoryResult[];
  modals: ModalRow[];
  lists: ListRow[];
  audit: AuditResult;
  startup: StartupResult;
  engines: EnginesOutcome;
  batch: BatchResult;
}

export const LIMITS = {
  ackP99Ratio: 1.5,
  viewsOpenMs: 300,
  memoryGrowthBytes: 20 * MB,
  auditQueryMs: 20,
  /** Slack shows a type-ahead's options only when they come back in the acknowledgement, within 3 s. */
  optionsAckMs: 3000,
  readyMs: 1000,
  /** A command's p99 on loopback Postgres over its p99 on SQLite. */
  postgresP99Ratio: 1.3,
} as const;

const ms = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const times = (ratio: number) => `${ratio.toFixed(2)}×`;
const spread = (d: Distribution, digits = 1) => `${ms(d.p50, digits)} / ${ms(d.max, digits)}`;

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export function targets(results: Results): Target[] {
  const list: Target[] = [];
  for (const row of results.ack.filter((candidate) => candidate.target)) {
    const bareP99 = row.latency.p99 / row.p99Ratio;
    list.push({
      name: `ack p99, ${row.text}, c=${row.connections}`,
      limit: `≤ ${LIMITS.ackP99Ratio}× bare`,
      measured: `${times(row.p99Ratio)} (${ms(row.latency.p99)} vs ${ms(bareP99)} ms)`,
      pass: row.p99Ratio <= LIMITS.ackP99Ratio,
    });
  }
  const worstOpen = Math.max(...results.modals.map((row) => row.open.max));
  list.push({
    name: 'views.open after the command (any provider latency)',
    limit: `≤ ${LIMITS.viewsOpenMs} ms`,
    measured: `max ${ms(worstOpen, 1)} ms`,
    pass: worstOpen <= LIMITS.viewsOpenMs,
  });
  for (const memory of results.memory.filter((candidate) => candidate.kind === 'voice')) {
    list.push({
      name: `rss growth over ${memory.commands} commands`,
      limit: `< ${mb(LIMITS.memoryGrowthBytes)}`,
      measured: mb(memory.rssGrowth),
      pass: memory.rssGrowth < LIMITS.memoryGrowthBytes,
    });
  }
  const typing = results.lists.filter((row) => row.what.startsWith('map form'));
  const worstOptions = Math.max(...typing.map((row) => row.ack.max));
  list.push({
    name: `type-ahead options at ${SCALE.numbers.toLocaleString('en-US')} numbers (Slack's wait)`,
    limit: `≤ ${LIMITS.optionsAckMs} ms`,
    measured: `max ${ms(worstOptions, 1)} ms`,
    pass: worstOptions <= LIMITS.optionsAckMs,
  });
  const audit = results.audit;
  const worstQuery = Math.max(audit.recent200.p95, audit.recent20.p95, audit.firstAfterReopen200);
  list.push({
    name: `audit query at ${audit.rows.toLocaleString('en-US')} rows`,
    limit: `< ${LIMITS.auditQueryMs} ms`,
    measured: `${ms(worstQuery)} ms (worst of recent(20/200) p95, first after reopen)`,
    pass: worstQuery < LIMITS.auditQueryMs,
  });
  const startup = results.startup;
  list.push({
    name: 'ready: startVoiceOps resolves',
    limit: `≤ ${LIMITS.readyMs} ms`,
    measured: `${ms(startup.startVoiceOps.max, 0)} ms (max)`,
    pass: startup.startVoiceOps.max <= LIMITS.readyMs,
  });
  list.push({
    name: 'ready: a new `npm start` process',
    limit: `≤ ${LIMITS.readyMs} ms`,
    measured: `${ms(startup.npmStart.p50, 0)} ms (median), ${ms(startup.npmStart.max, 0)} ms (max)`,
    pass: startup.npmStart.p50 <= LIMITS.readyMs,
  });
  list.push(...batchTargets(results.batch));
  if ('skipped' in results.engines) return list;
  for (const row of results.engines.help.filter((candidate) => candidate.engine === 'postgres')) {
    list.push({
      name: `a command on loopback Postgres, help, c=${row.connections}`,
      limit: `p99 ≤ ${LIMITS.postgresP99Ratio}× SQLite`,
      measured: `${times(row.p99Ratio)} (${ms(row.latency.p99)} vs ${ms(row.latency.p99 / row.p99Ratio)} ms)`,
      pass: row.p99Ratio <= LIMITS.postgresP99Ratio,
    });
  }
  const claims = results.engines.claims;
  list.push({
    name: `Confirm on ${claims.replicas} replicas at once, ${claims.confirmations} confirmations`,
    limit: `${claims.confirmations} buys, one each`,
    measured: `${claims.providerBuys} buys at the provider, ${claims.bought} bought, ${claims.refused} refused`,
    pass: onceEach(results.engines),
  });
  return list;
}

/** Each confirmation bought its number once: one buy at the provider, one "Bought" answer, the other presses refused. */
function onceEach({ claims }: EnginesResult): boolean {
  return (
    claims.providerBuys === claims.confirmations &&
    claims.bought === claims.confirmations &&
    claims.refused === claims.presses - claims.confirmations
  );
}

export function render(results: Results, list: Target[]): string {
  const out: string[] = [];
  out.push(
    'Acknowledgement latency over loopback (ms; × = app / bare Bolt in the same load, × +respond = app / bare Bolt + ' +
      'respond(); c = closed-loop concurrency)',
  );
  out.push(
    table(
      [
        'load',
        'app',
        'p50',
        'p95',
        'p99',
        'req/s',
        'p50 ×',
        'p99 ×',
        'req/s ×',
        'p99 × +respond',
        'app CPU ms/cmd',
        'loop delay p99',
        'new-conn max',
        'failed',
      ],
      results.ack.map((row) => [
        row.loop === 'open' ? `${row.rate}/s, ${row.connections} conns` : `c=${row.connections}`,
        row.label,
        ms(row.latency.p50),
        ms(row.latency.p95),
        ms(row.latency.p99),
        String(Math.round(row.rps)),
        times(row.p50Ratio),
        times(row.p99Ratio),
        times(row.rpsRatio),
        row.p99RatioToRespondFloor === undefined ? '—' : times(row.p99RatioToRespondFloor),
        ms(row.appCpuMsPerCommand, 3),
        ms(row.appLoopDelay.p99, 1),
        ms(row.warmupMax, 0),
        String(row.non2xx + row.errors + row.timeouts),
      ]),
    ),
  );
  out.push('');
  out.push('Resident memory of the app process (after a full GC and 1 s; growth = after − after warm-up)');
  out.push(
    table(
      [
        'app',
        'commands',
        'rss at start',
        'after warm-up',
        'halfway',
        'after',
        'rss growth',
        'heap used after',
        'heap growth',
        'posts landed',
      ],
      results.memory.map((row) => [
        `${row.kind} (${row.text})`,
        `${row.warmupCommands} + ${row.commands}`,
        mb(row.atStart.rss),
        mb(row.afterWarmup.rss),
        mb(row.halfway.rss),
        mb(row.after.rss),
        mb(row.rssGrowth),
        mb(row.after.heapUsed),
        mb(row.heapGrowth),
        row.kind === 'bare' ? '—' : String(row.delivered),
      ]),
    ),
  );
  out.push('');
  out.push('Command → views.open at the fake Slack (ms, median / max)');
  out.push(
    table(
      ['command', 'provider latency', 'samples', 'ack', 'views.open', 'modal filled'],
      results.modals.map((row) => [
        row.command,
        `${row.providerLatencyMs} ms`,
        String(row.samples),
        spread(row.ack),
        spread(row.open),
        row.filled ? `${spread(row.filled, 0)}${row.unfilled ? ` (${row.unfilled} not)` : ''}` : '—',
      ]),
    ),
  );
  out.push('');
  out.push(
    `Lists at ${SCALE.numbers.toLocaleString('en-US')} numbers and ${SCALE.agents.toLocaleString('en-US')} agents: ` +
      'request → answer at the fake Slack (ms)',
  );
  out.push(
    table(
      ['request', 'samples', 'ack p50', 'answer p50', 'p95', 'max', 'total'],
      results.lists.map((row) => [
        row.what,
        String(row.samples),
        ms(row.ack.p50, 1),
        ms(row.answer.p50, 1),
        ms(row.answer.p95, 1),
        ms(row.answer.max, 1),
        ms(row.totalMs, 0),
      ]),
    ),
  );
  out.push('');
  const audit = results.audit;
  out.push(`Audit log (temporary file, WAL; ${audit.rows.toLocaleString('en-US')} rows = ${mb(audit.fileBytes)})`);
  out.push(
    table(
      ['measure', 'value'],
      [
        ['AuditLog.append, one autocommit row each', `${Math.round(audit.insert.rowsPerSecond)} rows/s`],
        ['fill by recursive CTE', `${audit.fillSeconds.toFixed(1)} s`],
        [
          'recent(20) p50 / p95 / max',
          `${ms(audit.recent20.p50, 3)} / ${ms(audit.recent20.p95, 3)} / ${ms(audit.recent20.max, 3)} ms`,
        ],
        [
          'recent(200) p50 / p95 / max',
          `${ms(audit.recent200.p50, 3)} / ${ms(audit.recent200.p95, 3)} / ${ms(audit.recent200.max, 3)} ms`,
        ],
        [
          '`/voice audit` page (20 changes, total) + view p50 / p95',
          `${ms(audit.auditPageWithView.p50, 3)} / ${ms(audit.auditPageWithView.p95, 3)} ms`,
        ],
        ['recent(200), first after reopen', `${ms(audit.firstAfterReopen200, 3)} ms`],
      ],
    ),
  );
  out.push('');
  const startup = results.startup;
  out.push('Start-up to ready (ms, median / max)');
  out.push(
    table(
      ['what', 'time'],
      [
        ['startVoiceOps resolves (in-process, fresh temp DB)', spread(startup.startVoiceOps, 0)],
        ['  the same, first call in the app-under-test process', ms(startup.startVoiceOpsInFreshProcess, 0)],
        ['  that process: start → ready (module loading included)', ms(startup.appProcessToReady, 0)],
        ['npm start → "ready" line (npm, the build check, node dist/main.js)', spread(startup.npmStart, 0)],
        ['node dist/main.js → "ready" line', spread(startup.nodeDist, 0)],
        ['node -e 0 (floor of any new process)', spread(startup.nodeFloor, 0)],
      ],
    ),
  );
  out.push('');
  out.push(...renderBatch(results.batch), '');
  out.push(...renderEngines(results.engines, results.audit));
  out.push('');
  out.push('Targets');
  out.push(
    table(
      ['target', 'limit', 'measured', ''],
      list.map((target) => [target.name, target.limit, target.measured, target.pass ? 'PASS' : 'MISS']),
    ),
  );
  return out.join('\n');
}

function renderEngines(engines: EnginesOutcome, sqliteAudit: AuditResult): string[] {
  if ('skipped' in engines) return [`Postgres beside SQLite: skipped. ${engines.skipped}`];
  const name = { sqlite: 'SQLite', postgres: 'Postgres' } as const;
  const { claims } = engines;
  return [
    `/voice help on each engine, closed loop over loopback (ms; × = Postgres / SQLite; ${engines.server})`,
    table(
      ['load', 'engine', 'p50', 'p95', 'p99', 'req/s', 'p99 ×', 'app CPU ms/cmd', 'failed'],
      engines.help.map((row) => [
        `c=${row.connections}`,
        name[row.engine],
        ms(row.latency.p50),
        ms(row.latency.p95),
        ms(row.latency.p99),
        String(Math.round(row.rps)),
        times(row.p99Ratio),
        ms(row.appCpuMsPerCommand, 3),
        String(row.non2xx + row.errors + row.timeouts),
      ]),
    ),
    '',
    'A buy on each engine, one after another: command → prompt, Confirm → answer (ms, p50 / p99)',
    table(
      ['engine', 'buys', 'ask', 'Confirm', 'buy (ask + Confirm)'],
      engines.buys.map((row) => [
        name[row.engine],
        String(row.buy.count),
        `${ms(row.ask.p50, 1)} / ${ms(row.ask.p99, 1)}`,
        `${ms(row.confirm.p50, 1)} / ${ms(row.confirm.p99, 1)}`,
        `${ms(row.buy.p50, 1)} / ${ms(row.buy.p99, 1)}`,
      ]),
    ),
    '',
    'Postgres: replicas and the audit log',
    table(
      ['measure', 'value'],
      [
        [
          `Confirm of ${claims.confirmations} buys pressed on ${claims.replicas} replicas at once (${claims.presses} presses)`,
          `${ms(claims.ms, 0)} ms to the last answer`,
        ],
        [
          '  buys at the provider / "Bought" answers / refused',
          `${claims.providerBuys} / ${claims.bought} / ${claims.refused}: ` +
            (onceEach(engines) ? `exactly one each` : 'NOT one each'),
        ],
        [
          'AuditLog.append, one transaction each: Postgres / SQLite',
          `${Math.round(engines.auditAppends.rowsPerSecond)} / ${Math.round(sqliteAudit.insert.rowsPerSecond)} rows/s`,
        ],
      ],
    ),
  ];
}
