// `npm run bench:bodies`: what 1,000 forged bodies left hanging cost the app's own process (node dist/main.js, a
// fresh SQLite file). Each comes on a connection of its own, signed with a made-up signature and a current timestamp,
// sends part of its body and waits. Three kinds, each against a fresh process:
// - declared 4 MiB (over the limit): refused from its headers;
// - declared 1 MiB (the limit) and sent but the last byte: read and held until a newer one pushes it out;
// - no length (chunked), streamed until the app cuts it off past the limit.
// The figures: the process's resident memory (VmRSS, sampled every 10 ms) at its peak and once they all hang, above
// what it was idle; and signed `/voice help` acknowledgements while they hang. Target: peak within 20 MiB of idle.
// BENCH_NODE_ARGS: flags for the app's node (`--max-semi-space-size=1` shows how much of the figure is V8's young
// generation growing under the allocations, rather than anything held).
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startSandbox } from '../src/sandbox/server.js';
import { BODY_LIMIT_BYTES } from '../src/slack/receiver.js';
import { OPERATOR, SIGNING_SECRET } from '../test/harness/app.js';
import { appEnvironment, killLeftovers, spawnApp } from '../test/harness/app-process.js';
import { startFakeSlack } from '../test/harness/fake-slack.js';
import { forged, type RawRequest } from '../test/harness/forged-request.js';
import { slashCommand } from '../test/harness/payloads.js';
import { postToSlackApp } from '../test/harness/signing.js';
import { buildDist } from './ipc.js';
import { distribution, MB, round } from './stats.js';

const ATTACKERS = 1_000;
const OPENING_AT_ONCE = 50;
const ACKS = 20;
const TARGET_MIB = 20;

interface Kind {
  name: string;
  head: Record<string, string>;
  body: Buffer;
}

const KINDS: Kind[] = [
  {
    name: 'declared 4 MiB, 256 KiB sent',
    head: { 'content-length': String(4 * MB) },
    body: Buffer.alloc(256 * 1024, 'a'),
  },
  {
    name: 'declared 1 MiB, all but 1 byte sent',
    head: { 'content-length': String(BODY_LIMIT_BYTES) },
    body: Buffer.alloc(BODY_LIMIT_BYTES - 1, 'a'),
  },
  {
    name: 'chunked, 2 MiB streamed',
    head: { 'transfer-encoding': 'chunked' },
    body: Buffer.from(`${(2 * MB).toString(16)}\r\n${'a'.repeat(2 * MB)}`),
  },
];

const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

async function measure(kind: Kind) {
  const slack = await startFakeSlack();
  const sandbox = await startSandbox({ port: 0 });
  const dir = await mkdtemp(join(tmpdir(), 'voice-ops-bench-bodies-'));
  const env = { ...appEnvironment(slack, sandbox, join(dir, 'voice-ops.db')), LOG_LEVEL: 'info' };
  const app = spawnApp({ via: 'node', env, nodeArgs: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean) });
  const opened: RawRequest[] = [];
  try {
    const { eventsUrl, pid } = await app.ready;
    const help = async (i: number) => {
      const body = slashCommand({ text: 'help', userId: OPERATOR, responseUrl: slack.respondUrl(`bench-${i}`) });
      const sent = performance.now();
      const answer = await postToSlackApp(eventsUrl, SIGNING_SECRET, body);
      return { ms: performance.now() - sent, ok: answer.status === 200 };
    };
    for (let i = 0; i < ACKS; i++) await help(i);
    const idle = rssOf(pid);
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, 10);
    for (let i = 0; i < ATTACKERS; i += OPENING_AT_ONCE) {
      const wave = Array.from({ length: Math.min(OPENING_AT_ONCE, ATTACKERS - i) }, () =>
        forged(eventsUrl, kind.head, kind.body),
      );
      opened.push(...(await Promise.all(wave)));
    }
    const acks = [];
    for (let i = 0; i < ACKS; i++) acks.push(await help(ACKS + i));
    const hanging = rssOf(pid);
    clearInterval(sampler);
    const answers = await Promise.all(opened.map((request) => request.answered));
    const statuses: Record<string, number> = {};
    for (const { status } of answers)
      statuses[String(status ?? 'reset')] = (statuses[String(status ?? 'reset')] ?? 0) + 1;
    const latency = distribution(acks.map((ack) => ack.ms));
    return {
      kind: kind.name,
      idleMiB: round(idle / MB, 1),
      peakAboveIdleMiB: round((peak - idle) / MB, 1),
      hangingAboveIdleMiB: round((hanging - idle) / MB, 1),
      acked: acks.filter((ack) => ack.ok).length,
      ackMs: { p50: round(latency.p50, 1), max: round(latency.max, 1) },
      statuses,
    };
  } finally {
    for (const request of opened) request.socket.destroy();
    killLeftovers();
    await sandbox.close();
    await slack.close();
    await rm(dir, { recursive: true, force: true });
  }
}

buildDist();
const results = [];
for (const kind of KINDS) results.push(await measure(kind));
for (const result of results) {
  const verdict = result.peakAboveIdleMiB <= TARGET_MIB && result.acked === ACKS ? 'PASS' : 'MISS';
  process.stdout.write(`${JSON.stringify(result)} ${verdict} (peak ≤ ${TARGET_MIB} MiB above idle, every ack)\n`);
}
