// The operations' deps on real parts, for tests that call a module of src/ops or src/reconcile directly rather than
// through Slack: a store on a temporary database of this run's engine, on a clock the test moves; a provider client
// speaking HTTP to a fresh sandbox; the roles and guardrails given here, locked as the environment locks them. Wired as
// the composition root wires them (src/server.ts), less Slack: what would be announced is kept for the test to read.
import { afterEach, beforeEach, expect, vi } from 'vitest';
import type { DatabaseTarget } from '../../src/database-target.js';
import { Fence } from '../../src/fence.js';
import { InFlight } from '../../src/in-flight.js';
import { createLogger } from '../../src/log.js';
import { PrometheusMetrics } from '../../src/metrics.js';
import {
  AccessControl,
  type Announcement,
  type Announcer,
  accountLists,
  type BatchAnnouncement,
  type Change,
  type OpsDeps,
  ResourceLocks,
  SeenNumbers,
  SettingsInForce,
} from '../../src/ops/api.js';
import type { ProviderClient } from '../../src/provider/index.js';
import { type RouteName, type Sandbox, type SandboxSeed, startSandbox } from '../../src/sandbox/server.js';
import type { Settings } from '../../src/settings-schema.js';
import { openStore } from '../../src/store/open-store.js';
import { clientFor } from '../provider/helpers.js';
import { manualClock, useTempDatabases } from '../store/helpers.js';

export interface OpsBed {
  deps: OpsDeps;
  sandbox: Sandbox;
  /** Someone at the provider's dashboard: changes the app did not make. */
  outside: ProviderClient;
  /** The store's clock, and so the operations': it moves only when told. */
  clock: ReturnType<typeof manualClock>;
  /** What the operations handed the announcer, in order. */
  announced: { changes: Announcement[]; batches: BatchAnnouncement[]; outside: Change[][] };
}

export interface OpsBedOptions {
  /** The settings in force, locked; the rest are the defaults. */
  settings?: Partial<Settings>;
  /** Agents and purchased numbers the sandbox holds from the start. */
  seed?: SandboxSeed;
  /** User groups (S…) and their members, as Slack would answer; none by default, and Slack is never asked. */
  groups?: Record<string, string[]>;
}

const LEASE_TTL_MS = 15_000;
/** Long enough that no request a test holds at the sandbox is given up on while the test looks, on a busy machine. */
const PROVIDER_TIMEOUT_MS = 10_000;

/** A fresh bed for each test of the file, closed after it. */
export function useOpsDeps(options: OpsBedOptions = {}): () => OpsBed {
  const temp = useTempDatabases();
  let bed: OpsBed | undefined;
  let close: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    ({ bed, close } = await openOpsBed(await temp.target(), options));
  });

  // Registered after the temporary databases' own clean-up, so it runs before it: the store closes first.
  afterEach(async () => {
    await close?.();
    bed = undefined;
    close = undefined;
  });

  return () => {
    if (!bed) throw new Error('useOpsDeps() is only available inside a test');
    return bed;
  };
}

/** A bed on the database at `target`, for a test that needs several (one a run of a property); closed by `close`. */
export async function openOpsBed(
  target: DatabaseTarget,
  options: OpsBedOptions = {},
): Promise<{ bed: OpsBed; close: () => Promise<void> }> {
  const sandbox = await startSandbox({ port: 0, seed: options.seed });
  const provider = clientFor(sandbox, { timeoutMs: PROVIDER_TIMEOUT_MS });
  const outside = clientFor(sandbox);
  const clock = manualClock();
  const store = await openStore(target, { now: clock.now });
  const logger = createLogger('silent');
  const announced: OpsBed['announced'] = { changes: [], batches: [], outside: [] };
  const announcer: Announcer = {
    announce: async (announcement) => void announced.changes.push(announcement),
    announceBatch: async (announcement) => void announced.batches.push(announcement),
    announceOutside: async (changes) => void announced.outside.push(changes),
    postDigest: async () => undefined,
  };
  const groups = options.groups ?? {};
  const deps: OpsDeps = {
    provider,
    lists: accountLists(provider, store.routes),
    store,
    metrics: new PrometheusMetrics(),
    seen: new SeenNumbers(),
    // Roles come from the settings' user ids, and from the user groups given here as Slack would list their members.
    access: new AccessControl({
      groupMembers: async (group) => groups[group] ?? [],
      isGuest: async () => false,
      standing: async () => 'member',
    }),
    announcer,
    stepEnds: {
      end: async () => {
        throw new Error('no Workflow Builder step runs here');
      },
    },
    locks: new ResourceLocks(
      store.leases,
      { ttlMs: LEASE_TTL_MS, settleMs: 2 * PROVIDER_TIMEOUT_MS },
      logger,
      new Fence(store.liveness),
    ),
    changesUnderWay: new InFlight(),
    settings: new SettingsInForce(store.settings, { locked: options.settings ?? {}, lockedBy: {}, seed: {} }),
    now: store.now,
    logger,
  };
  const close = async () => {
    await Promise.all([provider.close(), outside.close()]);
    await store.close();
    await sandbox.close();
  };
  return { bed: { deps, sandbox, outside, clock, announced }, close };
}

/** Waits until the sandbox has received `count` requests to `route`, those it holds included. */
export function received(sandbox: Sandbox, route: RouteName, count: number): Promise<void> {
  return vi.waitFor(() => expect(sandbox.requestCount(route)).toBe(count), { timeout: 15_000 });
}
