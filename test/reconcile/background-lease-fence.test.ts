// The reconciler's own changes are fenced by the background lease, as a change's are by its locks: a client made for
// a pass (`provider.forChange(lease.term())`) sends a change only while the lease the pass began under holds by this
// process's clocks. The lease's deadline is read here on clocks the test moves, beside the database's clock, and the
// changes go to the sandbox, which counts what reaches it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import type { Metrics } from '../../src/metrics.js';
import type { ProviderClient } from '../../src/provider/index.js';
import { BackgroundLease } from '../../src/reconcile/background-lease.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { Leases } from '../../src/store/leases.js';
import { clientFor, rejection } from '../provider/helpers.js';
import { manualClock, useTempDatabases } from '../store/helpers.js';

const TTL_MS = 2_000;
/** How long after a take the lease surely holds: its time to live, less a quarter of it (ops/locks.ts). */
const HOLDS_MS = TTL_MS - TTL_MS / 4;

const NO_METRICS = { backgroundLease: () => {} } as unknown as Metrics;

let sandbox: Sandbox;
let provider: ProviderClient;
/** Routes the sandbox's number to its agent through `client`. */
let mapWith: (client: ProviderClient) => Promise<unknown>;
/** The maps that reached the sandbox. */
const maps = () => sandbox.requestCount('mapNumber');

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  provider = clientFor(sandbox);
  const { data } = await provider.searchNumbers({ region: 'GB', limit: 50 });
  const number = data.find((entry) => entry.capabilities.includes('voice'))?.number ?? '';
  await provider.buyNumber(number);
  const agent = await provider.createAgent({ name: 'Fenced desk', language: 'en-GB' });
  mapWith = (client) => client.mapNumber({ phone_number: number, agent_id: agent.id });
});
afterAll(async () => {
  await provider?.close();
  await sandbox?.close();
});

describe('a pass fenced by the background lease', () => {
  const temp = useTempDatabases();
  /** The database's clock and both of this process's clocks, moved on together unless a test says otherwise. */
  let database: ReturnType<typeof manualClock>;
  let now: { monotonic: number; wall: number };
  let leases: Leases;
  const pass = (ms: number) => {
    database.advance(ms);
    now.monotonic += ms;
    now.wall += ms;
  };

  beforeEach(async () => {
    database = manualClock();
    now = { monotonic: 1_000, wall: database.now().getTime() };
    leases = new Leases(await temp.open(), { now: database.now });
  });

  function replica(name: string) {
    const liveness = { replica: name, held: true, epoch: 0 };
    const clocks = { monotonic: () => now.monotonic, wall: () => now.wall };
    const lease = new BackgroundLease(liveness, leases, TTL_MS, createLogger('silent'), NO_METRICS, clocks);
    /** A client for a pass begun now, as the reconciler makes one. */
    const passClient = () => provider.forChange(lease.term());
    return { lease, liveness, passClient };
  }

  it('sends while its lease holds, renewed in time; and nothing once it may have lapsed, paused past it', async () => {
    const a = replica('replica-a');
    expect(await a.lease.hold()).toBe(true);
    const client = a.passClient();
    const before = maps();
    await mapWith(client);
    // Renewed on each beat, the pass goes on sending past the first take's deadline.
    for (let beat = 0; beat < 4; beat++) {
      pass(TTL_MS / 3);
      expect(await a.lease.hold()).toBe(true);
    }
    await mapWith(client);
    expect(maps() - before).toBe(2);

    // Paused past the deadline, nothing renewed meanwhile: it gives up a margin before the others may take over.
    pass(HOLDS_MS);
    const b = replica('replica-b');
    expect(await b.lease.hold(), 'the lease has not lapsed for the others yet').toBe(false);
    pass(TTL_MS - HOLDS_MS);
    expect(await b.lease.hold()).toBe(true);
    const withheld = await rejection(mapWith(client));
    expect(withheld.kind).toBe('withheld');
    expect(withheld.mayStillLand).toBe(true);
    expect(maps() - before, 'nothing sent on waking').toBe(2);
    expect(await a.lease.hold()).toBe(false);
    expect((await rejection(mapWith(client))).kind).toBe('withheld');
    expect(maps() - before).toBe(2);
  });

  it('stops one millisecond before the deadline, on either clock, with nobody else there yet', async () => {
    const a = replica('replica-a');
    await a.lease.hold();
    const client = a.passClient();
    const before = maps();
    pass(HOLDS_MS - 1);
    await mapWith(client);
    now.monotonic += 1;
    expect((await rejection(mapWith(client))).kind).toBe('withheld');

    // A host's suspend stops the monotonic clock, not the wall clock.
    await a.lease.hold();
    const after = a.passClient();
    await mapWith(after);
    now.wall += 60_000;
    expect((await rejection(mapWith(after))).kind).toBe('withheld');
    expect(maps() - before).toBe(2);
  });

  it('is not revived by a take after the lapse: the pass begun under the old holding stays stopped, a new pass sends', async () => {
    const a = replica('replica-a');
    await a.lease.hold();
    const old = a.passClient();
    const before = maps();
    // Paused past the deadline, but nobody took the lease over: the next beat takes it again.
    pass(TTL_MS);
    expect(await a.lease.hold()).toBe(true);
    expect((await rejection(mapWith(old))).kind).toBe('withheld');
    await mapWith(a.passClient());
    expect(maps() - before, 'only the pass begun under the new holding sent').toBe(1);
  });

  it('stops when the lease is lost, or the replica lost its liveness since the pass began, even within the deadline', async () => {
    const a = replica('replica-a');
    await a.lease.hold();
    const client = a.passClient();
    const before = maps();
    a.liveness.held = false;
    a.liveness.epoch += 1;
    a.liveness.held = true;
    const cut = await rejection(mapWith(client));
    expect(cut.kind).toBe('withheld');
    expect(cut.mayStillLand, 'told as a loss of liveness, not a lapse').toBeUndefined();

    await a.lease.hold();
    const next = a.passClient();
    // Given back (the replica stops): the pass begun before sends nothing more.
    await a.lease.stop();
    expect((await rejection(mapWith(next))).kind).toBe('withheld');
    expect(maps() - before).toBe(0);
  });
});
