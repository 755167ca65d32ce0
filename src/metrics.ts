// The app's Prometheus metrics at GET /metrics. One registry per running app (not prom-client's global one), so that
// several apps in one process count apart.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** prom-client's 10 ms costs an idle app about 1% of a core; 20 ms halves that and still sees any stall of 20 ms. */
const LOOP_LAG_SAMPLE_MS = 20;

/** What a provider or Slack call reports once it has ended: how long it took, and its error if it failed. */
export interface CallEnded {
  seconds: number;
  /** The provider error's kind or Slack's error code; absent when the call succeeded. */
  error?: string;
}

// Seconds: a loopback sandbox answers in a millisecond, a slow provider in seconds.
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const STORE_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5];

/** A registry of its own, Node's process metrics first. */
function registryWithDefaults(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'voice_ops_', eventLoopMonitoringPrecision: LOOP_LAG_SAMPLE_MS });
  return registry;
}

/** What the rest of the app reports; prom-client stays behind it. */
export class PrometheusMetrics {
  readonly registry = registryWithDefaults();
  readonly #commands = new Counter({
    name: 'voice_ops_commands_total',
    help: '/voice commands received, by command',
    labelNames: ['command'],
    registers: [this.registry],
  });
  readonly #auditRows = new Counter({
    name: 'voice_ops_audit_steps_total',
    help: 'Audit rows written, by action and outcome (requested, confirmed, succeeded, failed, denied, ...)',
    labelNames: ['action', 'outcome'],
    registers: [this.registry],
  });
  readonly #providerSeconds = new Histogram({
    name: 'voice_ops_provider_request_seconds',
    help: "Provider API requests, by method and endpoint, each attempt timed to its answer's end",
    labelNames: ['method', 'endpoint'],
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  readonly #providerFailures = new Counter({
    name: 'voice_ops_provider_request_failures_total',
    help: 'Provider API requests that failed, by method, endpoint and kind of failure',
    labelNames: ['method', 'endpoint', 'kind'],
    registers: [this.registry],
  });
  readonly #slackSeconds = new Histogram({
    name: 'voice_ops_slack_call_seconds',
    help: 'Slack Web API calls, by method',
    labelNames: ['method'],
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  readonly #slackFailures = new Counter({
    name: 'voice_ops_slack_call_failures_total',
    help: "Slack Web API calls that failed, by method and Slack's error code",
    labelNames: ['method', 'error'],
    registers: [this.registry],
  });
  readonly #storeSeconds = new Histogram({
    name: 'voice_ops_database_transaction_seconds',
    help: 'Database transactions, each timed from begin to commit or rollback',
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });
  readonly #statementSeconds = new Histogram({
    name: 'voice_ops_database_statement_seconds',
    help: 'Database statements (each query, and BEGIN and COMMIT on Postgres), each timed to its answer',
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });
  readonly #reconcilerLastPass = new Gauge({
    name: 'voice_ops_reconciler_last_pass_timestamp_seconds',
    help: "When the reconciler's last pass ended (Unix time)",
    registers: [this.registry],
  });
  readonly #reconcilerLastPassOk = new Gauge({
    name: 'voice_ops_reconciler_last_pass_ok',
    help: "1 when the reconciler's last pass could read the provider, 0 when it could not",
    registers: [this.registry],
  });
  readonly #backgroundLease = new Gauge({
    name: 'voice_ops_background_lease_held',
    help: 'Per replica: 1 while it holds the lease on the background work (reconciler, approval expiry), else 0',
    labelNames: ['replica'],
    registers: [this.registry],
  });
  readonly #refused = new Counter({
    name: 'voice_ops_slack_requests_refused_total',
    help: 'Requests to /slack/events refused before any parse, by reason (unsigned, stale, bad signature, ...)',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly #unproven = new Gauge({
    name: 'voice_ops_slack_unproven_bodies',
    help: 'Bodies to /slack/events being read now, their signature not yet known (at most 8)',
    registers: [this.registry],
  });
  readonly #readinessChecks = new Counter({
    name: 'voice_ops_readiness_checks_total',
    help: 'Checks of a dependency run for /readyz (at most one per refresh period, however many probes)',
    labelNames: ['dependency'],
    registers: [this.registry],
  });
  readonly #databaseFaults = new Counter({
    name: 'voice_ops_database_faults_total',
    help: 'Requests stopped by a database failure, by kind (unreachable, busy, full, not writable, failing)',
    labelNames: ['kind'],
    registers: [this.registry],
  });
  readonly #liveness = new Gauge({
    name: 'voice_ops_liveness_held',
    help: '1 while this replica holds its liveness; at 0 it sends the provider no change (it may have been taken over)',
    registers: [this.registry],
  });
  readonly #takenOver = new Counter({
    name: 'voice_ops_replicas_taken_over_total',
    help: 'Other replicas found dead by this one: their leases freed at once, their changes resolved',
    registers: [this.registry],
  });
  readonly #withheld = new Counter({
    name: 'voice_ops_changes_withheld_total',
    help:
      'Changes not sent to the provider because this replica had lost its liveness (or began them before it did), ' +
      'or their leases had lapsed while it was paused',
    registers: [this.registry],
  });
  readonly #secondOutcomes = new Counter({
    name: 'voice_ops_second_outcomes_refused_total',
    help: 'Outcomes of a change refused because it had been settled with the other one: check the provider',
    labelNames: ['action'],
    registers: [this.registry],
  });
  readonly #ownedNumbers = new Gauge({
    name: 'voice_ops_numbers_by_owner',
    help: "The account's numbers by owning team (its user-group id, or none), as of the reconciler's last pass",
    labelNames: ['owner'],
    registers: [this.registry],
  });
  readonly #ownedAgents = new Gauge({
    name: 'voice_ops_agents_by_owner',
    help: "The account's agents by owning team (its user-group id, or none), as of the reconciler's last pass",
    labelNames: ['owner'],
    registers: [this.registry],
  });
  readonly #rowsVerified = new Counter({
    name: 'voice_ops_audit_rows_verified_total',
    help: "Audit rows that reads rebuilding from the log verified against its chain: those after the chain's last checkpoint",
    registers: [this.registry],
  });

  /** `droppedLogLines`: how many log lines the log's destination could not write (a stalled or closed stdout). */
  constructor(droppedLogLines: () => number = () => 0) {
    new Counter({
      name: 'voice_ops_log_lines_dropped_total',
      help: 'Log lines dropped because stdout could not take them (a stalled or closed log pipe)',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(droppedLogLines());
      },
    });
  }

  /** A request to the Slack URL refused before it was parsed (unsigned, stale, too large, a wrong signature). */
  requestRefused(reason: string): void {
    this.#refused.inc({ reason });
  }

  /** How many bodies to the Slack URL are being read before their signature is known. */
  unprovenBodies(count: number): void {
    this.#unproven.set(count);
  }

  /** One run of a dependency's readiness check. */
  readinessCheck(dependency: string): void {
    this.#readinessChecks.inc({ dependency });
  }

  /** A request stopped by a database failure, by what the failure said of the database. */
  databaseFault(kind: string): void {
    this.#databaseFaults.inc({ kind });
  }

  /** Whether this replica holds its liveness (its own database session, or its file lock) now. */
  liveness(held: boolean): void {
    this.#liveness.set(held ? 1 : 0);
  }

  /** Other replicas found dead, and taken over. */
  replicaTakenOver(count: number): void {
    this.#takenOver.inc(count);
  }

  /** A change not sent to the provider because this replica had lost its liveness, or the change its leases. */
  changeWithheld(): void {
    this.#withheld.inc();
  }

  /** An outcome of a change refused because its intent had been closed with the other one (ops/second-outcome.ts). */
  secondOutcomeRefused(action: string): void {
    this.#secondOutcomes.inc({ action });
  }

  /** Audit rows a read verified against the chain: those after the last checkpoint. */
  auditRowsVerified(rows: number): void {
    this.#rowsVerified.inc(rows);
  }

  /** Whether this replica holds the background lease now. */
  backgroundLease(replica: string, held: boolean): void {
    this.#backgroundLease.set({ replica }, held ? 1 : 0);
  }

  command(name: string): void {
    this.#commands.inc({ command: name });
  }

  auditRow(action: string, outcome: string): void {
    this.#auditRows.inc({ action, outcome });
  }

  providerCall({ method, endpoint, seconds, error }: CallEnded & { method: string; endpoint: string }): void {
    this.#providerSeconds.observe({ method, endpoint }, seconds);
    if (error !== undefined) this.#providerFailures.inc({ method, endpoint, kind: error });
  }

  slackCall({ method, seconds, error }: CallEnded & { method: string }): void {
    this.#slackSeconds.observe({ method }, seconds);
    if (error !== undefined) this.#slackFailures.inc({ method, error });
  }

  storeTransaction(seconds: number): void {
    this.#storeSeconds.observe(seconds);
  }

  databaseStatement(seconds: number): void {
    this.#statementSeconds.observe(seconds);
  }

  /** How many numbers and agents each team owns (`none`: nobody), a team that owns none left out. */
  ownedBy(counts: Record<'numbers' | 'agents', ReadonlyMap<string, number>>): void {
    for (const [gauge, owned] of [
      [this.#ownedNumbers, counts.numbers],
      [this.#ownedAgents, counts.agents],
    ] as const) {
      gauge.reset();
      for (const [owner, count] of owned) gauge.set({ owner }, count);
    }
  }

  reconcilerPass(at: Date, ok: boolean): void {
    this.#reconcilerLastPass.set(at.getTime() / 1000);
    this.#reconcilerLastPassOk.set(ok ? 1 : 0);
  }
}

export type Metrics = PrometheusMetrics;
