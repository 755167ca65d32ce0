// At tens of thousands of audit rows, `/voice export as of`, `/voice changes since` and `/voice history` are
// acknowledged at once and answer from the verified log, while another person's `/voice help` is acknowledged as they
// run: the chain is verified, from its last checkpoint on, and the log replayed, each letting the event loop turn
// whenever it has held it for a slice of time.
// A second read verifies only the rows after the checkpoint the first wrote; an edit after it is refused by all three.
// How long each takes at 1,000,000 rows is the benchmark's (bench/history.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, OPERATOR, type TestApp, VIEWER } from '../harness/app.js';
import { allowAuditEdits, fill } from '../store/audit-support.js';
import {
  copiedCodeBlock,
  type SandboxAgent,
  type SandboxNumber,
  sample,
  scrape,
  shownText,
  startSeededApp,
} from './support.js';

const ROWS = 60_000;
/** The filled rows' first time: a second apart, they span about 17 hours. */
const FROM = new Date('2020-01-01T00:00:00Z');
const MOMENT = '2020-01-01T08:00Z';
/** Generous: on a shared machine's slowest moment, well within Slack's three seconds. */
const ACK_WITHIN_MS = 1500;

let t: TestApp;
let numbers: SandboxNumber[];
let agents: SandboxAgent[];
/** The agent each number routes to as of MOMENT and at the end of the filled rows. */
const asOf = new Map<string, string>();
const atEnd = new Map<string, string>();

/** Every 20th row a map of one number to one agent (its route as of MOMENT kept), the rest reads. */
function rowOf(n: number) {
  if (n % 20 !== 19) return {};
  const number = numbers[n % numbers.length]?.number ?? '';
  const agentId = agents[((n / 20) % agents.length) | 0]?.id ?? '';
  if (FROM.getTime() + n * 1000 <= Date.parse(MOMENT)) asOf.set(number, agentId);
  atEnd.set(number, agentId);
  return { action: 'routing.map', target: number, params: JSON.stringify({ agentId }), outcome: 'succeeded' };
}

const verifiedSoFar = async () => sample((await scrape(t)).text, 'voice_ops_audit_rows_verified_total');
const lastCheckpoint = async () =>
  (await (await t.database.sql()).get<{ id: number }>('SELECT max(id) AS id FROM audit_checkpoints'))?.id ?? 0;

/** `/voice TEXT` as `user`: how long its acknowledgement took, and the answer it had, in the ack or later. */
async function timed(text: string, user: string) {
  const started = performance.now();
  const sent = await t.command(text, user);
  const ackMs = performance.now() - started;
  return { ackMs, answer: t.respondedTo(sent.responseUrlId, 60_000) };
}

/** The three reads at once, and another person's `/voice help` sent while they run. */
async function readsWithHelpBeside(number: string) {
  const reads = await Promise.all([
    timed(`export as of ${MOMENT}`, ADMIN),
    timed(`changes since ${MOMENT}`, OPERATOR),
    timed(`history ${number}`, ADMIN),
  ]);
  const help = await timed('help', VIEWER);
  const answers = await Promise.all(reads.map((read) => read.answer));
  return {
    acks: reads.map((read) => read.ackMs),
    helpAckMs: help.ackMs,
    help: shownText(await help.answer),
    answers,
    shown: answers.map(shownText),
  };
}

beforeAll(async () => {
  ({ t, numbers, agents } = await startSeededApp({ agents: 3, numbers: 6, routed: 0 }));
  await fill(await t.database.sql(), ROWS, FROM, rowOf);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('a long audit log', () => {
  it('is read by the three commands, acknowledged at once, while another person is acknowledged beside them', async () => {
    const number = numbers[0]?.number ?? '';
    const before = await verifiedSoFar();
    const first = await readsWithHelpBeside(number);

    for (const ackMs of [...first.acks, first.helpAckMs]) expect(ackMs).toBeLessThan(ACK_WITHIN_MS);
    expect(first.help).toContain('/voice');
    const [, changes = '', history = ''] = first.shown;
    const routes = first.answers[0] ? copiedCodeBlock(first.answers[0]) : '';
    expect(routes).toContain(`${asOf.size} routed`);
    for (const [routed, agentId] of asOf) expect(routes).toContain(`${routed} ${agentId}`);
    expect(changes).toContain(`${atEnd.size} numbers`);
    expect(history).toContain(number);
    // Each of the three verified the whole log, none having found a checkpoint when it began.
    expect((await verifiedSoFar()) - before).toBeGreaterThanOrEqual(ROWS);
  }, 120_000);

  it('is verified again only after the checkpoint a read wrote', async () => {
    const checkpoint = await lastCheckpoint();
    await fill(await t.database.sql(), 40, new Date('2020-01-01T20:00:00Z'));
    const before = await verifiedSoFar();
    const second = await readsWithHelpBeside(numbers[1]?.number ?? '');

    for (const ackMs of [...second.acks, second.helpAckMs]) expect(ackMs).toBeLessThan(ACK_WITHIN_MS);
    expect(second.shown[0]).toContain('rebuilt from the verified audit log');
    expect(second.shown[2]).toContain(numbers[1]?.number);
    // The 40 rows after the checkpoint (and any the app appended meanwhile), by each read that began before another
    // checkpointed them: none before it.
    const after = (await lastCheckpoint()) - checkpoint;
    expect(after).toBeGreaterThanOrEqual(40);
    expect(after).toBeLessThan(100);
    const verified = (await verifiedSoFar()) - before;
    expect(verified).toBeGreaterThanOrEqual(after);
    expect(verified).toBeLessThanOrEqual(3 * after);
  }, 120_000);

  it('refuses, in each of the three, an edit made after the checkpoint', async () => {
    const sql = await t.database.sql();
    await fill(sql, 50, new Date('2020-01-02T00:00:00Z'));
    const edited = (await lastCheckpoint()) + 10;
    await allowAuditEdits(sql);
    await sql.run("UPDATE audit_events SET actor_id = 'UNOBODY' WHERE id = ?", [edited]);

    const { shown } = await readsWithHelpBeside(numbers[0]?.number ?? '');
    for (const answer of shown) {
      expect(answer).toContain(`The audit log's hash chain breaks at row ${edited}`);
      expect(answer).not.toContain('```');
    }
  }, 120_000);
});
