// The audit log tells who changed what, step by step, and cannot be rewritten; the CLI exports it. Secrets (agent
// tokens, the provider key, Slack's token and signing secret) never reach a log, a table or a shared message, and
// requests Slack did not sign are refused before they can change anything.

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIGURATION } from '../../src/ops/api.js';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { encodeMetadata } from '../../src/slack/metadata.js';
import { EXPORT_COLUMNS } from '../../src/store/audit-export.js';
import { ADMIN, BOT_TOKEN, OPS_CHANNEL, SIGNING_SECRET, startTestApp, type TestApp } from '../harness/app.js';
import { RESPONSE_URL, type SlackCall, TEAM_ID } from '../harness/fake-slack.js';
import { blockAction, selectInput, slashCommand, textInput } from '../harness/payloads.js';
import { FORM_CONTENT_TYPE, slackSignature } from '../harness/signing.js';
import { parseCsv } from '../store/rfc4180.js';
import {
  type AuditRow,
  askForConfirmation,
  auditRows,
  buyThroughApp,
  confirmAs,
  createAgentThroughApp,
  EPHEMERAL,
  everyRowAsJson,
  homeRefreshesDone,
  mapThroughApp,
  providerRequests,
  readable,
  sandboxNumbers,
  shownText,
  viewOf,
  voiceNumber,
} from './support.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** What one run through every kind of change left behind. */
interface Story {
  number: string;
  agentId: string;
  tokens: { byCommand: string; byModal: string };
  /** Where each token was shown to its creator. */
  shownIn: { byCommand: SlackCall; byModal: SlackCall };
}

/** Creates an agent in the create-agent modal; resolves with the token the modal showed and the call showing it. */
async function createAgentInModal(t: TestApp, name: string): Promise<{ token: string; call: SlackCall }> {
  const viewId = 'VCREATEMODAL';
  const since = t.slack.mark();
  await t.submit({
    userId: ADMIN,
    callbackId: CALLBACK.createAgent,
    viewId,
    privateMetadata: encodeMetadata({ channelId: OPS_CHANNEL }),
    stateValues: {
      [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput(name) },
      [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput('en-GB') },
      [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(null) },
    },
  });
  const call = await t.slack.waitFor(
    'views.update',
    (candidate) => candidate.body.view_id === viewId && shownText(candidate).includes('Agent token'),
    { since, description: 'showing the new agent token' },
  );
  const token = /```([^`]+)```/.exec(readable(viewOf(call).blocks))?.[1] ?? '';
  return { token, call };
}

/** Every change the app makes, once, by the admin: create (command and modal), buy, map, release, delete. */
async function everyChange(t: TestApp): Promise<Story> {
  const byCommand = await createAgentThroughApp(t, ADMIN, 'Billing line');
  const byModal = await createAgentInModal(t, 'Sales line');
  const number = await voiceNumber(t);
  await buyThroughApp(t, ADMIN, number);
  await mapThroughApp(t, ADMIN, number, byCommand.agent.id);
  const release = await askForConfirmation(t, ADMIN, `numbers release ${number}`);
  expect(shownText(await confirmAs(t, ADMIN, release.confirmationId))).toContain('Released');
  const remove = await askForConfirmation(t, ADMIN, `agents delete ${byCommand.agent.id}`);
  expect(shownText(await confirmAs(t, ADMIN, remove.confirmationId))).toContain('Deleted agent');
  await homeRefreshesDone(t);
  return {
    number,
    agentId: byCommand.agent.id,
    tokens: { byCommand: byCommand.token, byModal: byModal.token },
    shownIn: { byCommand: byCommand.reply, byModal: byModal.call },
  };
}

/** The rows of each request (one correlation id), requests in the order they began. */
function trails(rows: AuditRow[]): AuditRow[][] {
  const byCorrelation = new Map<string, AuditRow[]>();
  for (const row of rows)
    byCorrelation.set(row.correlation_id, [...(byCorrelation.get(row.correlation_id) ?? []), row]);
  return [...byCorrelation.values()];
}

/** How `npm run audit` is pointed at the app's database: `--db PATH` for a SQLite file, DATABASE_URL for Postgres. */
const whichDatabase = (t: TestApp) => (t.database.target.kind === 'sqlite' ? ['--db', t.dbPath] : []);
const cliEnv = (t: TestApp) => ({
  ...process.env,
  ...(t.database.target.kind === 'postgres' ? { DATABASE_URL: t.database.target.url } : {}),
});

describe('after every kind of change', () => {
  let t: TestApp;
  let story: Story;
  beforeAll(async () => {
    t = await startTestApp();
    story = await everyChange(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('each change left its request, confirmation and success under one correlation id, with who, where and what', async () => {
    // The settings the configuration wrote at start are its own change, not one of these.
    const rows = (await auditRows(t)).filter((row) => row.actor_id !== CONFIGURATION.userId);
    const summary = trails(rows).map((trail) => trail.map((row) => `${row.action} ${row.outcome} ${row.source}`));
    expect(summary).toEqual([
      ['agent.create requested command', 'agent.create succeeded command'],
      ['agent.create requested modal', 'agent.create succeeded modal'],
      ['number.buy requested command', 'number.buy confirmed button', 'number.buy succeeded button'],
      ['routing.map requested command', 'routing.map succeeded command'],
      ['number.release requested command', 'number.release confirmed button', 'number.release succeeded button'],
      ['agent.delete requested command', 'agent.delete confirmed button', 'agent.delete succeeded button'],
    ]);

    for (const row of rows) {
      expect(row, `row ${row.id}`).toMatchObject({
        actor_id: ADMIN,
        actor_name: ADMIN.toLowerCase(),
        team_id: TEAM_ID,
        channel_id: OPS_CHANNEL,
        error_code: null,
      });
      expect(row.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(row.correlation_id).toMatch(/^[0-9a-f-]{36}$/);
    }

    // Targets: the number or agent each step was about. An agent being created has no id yet: its request names
    // it in the parameters, and its success names the id the provider gave it.
    const targets = trails(rows).map((trail) => trail.map((row) => row.target));
    const [created] = trails(rows);
    const agentId = created?.[1]?.target ?? '';
    expect(agentId).toMatch(/^agt_/);
    expect(JSON.parse(created?.[0]?.params ?? '{}')).toEqual({ name: 'Billing line', language: 'en-US' });
    expect(targets.slice(2)).toEqual([
      [story.number, story.number, story.number],
      [story.number, story.number],
      [story.number, story.number, story.number],
      [story.agentId, story.agentId, story.agentId],
    ]);
    expect(agentId).toBe(story.agentId);
  });

  it('refuses to update, delete or replace audit rows, even by hand', async () => {
    const db = await t.database.sql();
    const before = await db.all('SELECT * FROM audit_events ORDER BY id');
    expect(before.length).toBeGreaterThan(0);
    const byHand = [
      "UPDATE audit_events SET outcome = 'failed'",
      "UPDATE audit_events SET actor_id = 'UNOBODY' WHERE id = 1",
      'DELETE FROM audit_events',
      'DELETE FROM audit_events WHERE id = 1',
      t.database.target.kind === 'sqlite'
        ? 'INSERT OR REPLACE INTO audit_events (id, at, actor_id, source, action, outcome, correlation_id, hash) ' +
          "SELECT id, at, 'UNOBODY', source, action, outcome, correlation_id, hash FROM audit_events WHERE id = 1"
        : 'TRUNCATE audit_events',
    ];
    for (const statement of byHand) await expect(db.run(statement), statement).rejects.toThrow(/append-only/);
    expect(await db.all('SELECT * FROM audit_events ORDER BY id')).toEqual(before);
  });

  describe('`npm run audit` exports the rows', () => {
    const exportAs = async (format: 'jsonl' | 'csv') => {
      const args = ['--import', 'tsx', 'src/store/export-cli.ts', ...whichDatabase(t), '--since', '2000-01-01'];
      const { stdout } = await run(process.execPath, [...args, '--format', format], { cwd: REPO, env: cliEnv(t) });
      return stdout;
    };

    it('as JSON lines', async () => {
      const rows = await auditRows(t);
      const exported = (await exportAs('jsonl'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(exported).toHaveLength(rows.length);
      exported.forEach((event, index) => {
        const row = rows[index] as AuditRow;
        expect(event).toEqual({
          id: row.id,
          at: row.at,
          actorId: row.actor_id,
          actorName: row.actor_name,
          teamId: row.team_id,
          channelId: row.channel_id,
          source: row.source,
          action: row.action,
          target: row.target,
          outcome: row.outcome,
          errorCode: row.error_code,
          errorMessage: row.error_message,
          correlationId: row.correlation_id,
          params: row.params === null ? null : JSON.parse(row.params),
          hash: row.hash,
        });
      });
    });

    it('as CSV', async () => {
      const rows = await auditRows(t);
      const [header, ...records] = parseCsv(await exportAs('csv'));
      expect(header).toEqual([...EXPORT_COLUMNS]);
      expect(records).toHaveLength(rows.length);
      const column = (name: (typeof EXPORT_COLUMNS)[number]) => EXPORT_COLUMNS.indexOf(name);
      records.forEach((record, index) => {
        const row = rows[index] as AuditRow;
        expect(record[column('id')]).toBe(String(row.id));
        expect(record[column('correlationId')]).toBe(row.correlation_id);
        expect(record[column('action')]).toBe(row.action);
        expect(record[column('outcome')]).toBe(row.outcome);
        expect(record[column('actorId')]).toBe(row.actor_id);
        expect(record[column('hash')]).toBe(row.hash);
      });
    });
  });

  it('`npm run audit -- --verify` recomputes the hash chain of every row the app wrote', async () => {
    const args = ['--import', 'tsx', 'src/store/export-cli.ts', ...whichDatabase(t), '--verify'];
    const { stdout } = await run(process.execPath, args, { cwd: REPO, env: cliEnv(t) });
    const rows = await auditRows(t);
    expect(stdout).toBe(`${rows.length} rows verified\nlast row ${rows.length}, hash ${rows.at(-1)?.hash}\n`);
  });

  it('never logs, stores or shares a secret; each agent token is shown once, to its creator', async () => {
    const { byCommand, byModal } = story.tokens;
    expect(byCommand).toMatch(/^\S{16,}$/);
    expect(byModal).toMatch(/^\S{16,}$/);
    expect(byModal).not.toBe(byCommand);
    // Shown once each: in the creator's ephemeral reply, and in the modal the creator submitted.
    expect(story.shownIn.byCommand.method).toBe(RESPONSE_URL);
    expect(JSON.stringify(story.shownIn.byCommand.body)).toContain(byCommand);
    expect(story.shownIn.byModal.method).toBe('views.update');
    const showing = (token: string) =>
      t.slack.calls().filter((call) => JSON.stringify(call.body).includes(token)).length;
    expect(showing(byCommand)).toBe(1);
    expect(showing(byModal)).toBe(1);

    // The strings swept for are the ones in use: the app called Slack and the provider with them.
    expect(t.slack.calls('chat.postMessage')[0]?.token).toBe(BOT_TOKEN);
    expect(t.config.provider?.apiKey).toBe(t.sandbox.apiKey);
    const secrets: Record<string, string> = {
      'the agent token (command)': byCommand,
      'the agent token (modal)': byModal,
      'the provider API key': t.sandbox.apiKey,
      'the Slack bot token': BOT_TOKEN,
      'the Slack signing secret': SIGNING_SECRET,
    };

    const logs = t.logs.text();
    expect(t.logs.lines().length).toBeGreaterThan(20); // debug level: Bolt and the provider client had their say
    const rows = await everyRowAsJson(t);
    const files = [t.dbPath, `${t.dbPath}-wal`].filter(existsSync).map((path) => readFileSync(path).toString('latin1'));
    const shared = ['chat.postMessage', 'chat.update', 'views.publish'].flatMap((method) =>
      t.slack.calls(method).map((call) => JSON.stringify(call.body)),
    );
    expect(shared.length).toBeGreaterThanOrEqual(6 + 6); // six announcements (posts or rewrites), six Home tab refreshes

    for (const [what, secret] of Object.entries(secrets)) {
      expect(logs.includes(secret), `${what} in the log`).toBe(false);
      expect(rows.includes(secret), `${what} in a table`).toBe(false);
      expect(
        files.some((file) => file.includes(secret)),
        `${what} in the database files`,
      ).toBe(false);
      expect(
        shared.filter((body) => body.includes(secret)),
        `${what} in a channel or Home tab`,
      ).toEqual([]);
    }
    for (const secret of [t.sandbox.apiKey, BOT_TOKEN, SIGNING_SECRET]) {
      expect(t.slack.calls().filter((call) => JSON.stringify(call.body).includes(secret))).toEqual([]);
    }
  });
});

describe('requests Slack did not sign', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('are refused with 401 (missing, wrong or stale signature) and change nothing', async () => {
    const number = await voiceNumber(t);
    const { confirmationId } = await askForConfirmation(t, ADMIN, `numbers buy ${number}`);
    await homeRefreshesDone(t);

    const forged = {
      command: slashCommand({
        text: `numbers buy ${await voiceNumber(t, 'US', 1)}`,
        userId: ADMIN,
        responseUrl: t.slack.respondUrl('forged-command'),
      }),
      confirm: blockAction({
        userId: ADMIN,
        actionId: ACTION.confirmChange,
        value: confirmationId,
        container: EPHEMERAL,
        responseUrl: t.slack.respondUrl('forged-confirm'),
      }),
    };
    const provider = providerRequests(t);
    const rows = (await auditRows(t)).length;
    const now = Math.floor(Date.now() / 1000);

    for (const body of Object.values(forged)) {
      const unsigned = await fetch(t.eventsUrl, {
        method: 'POST',
        headers: { 'content-type': FORM_CONTENT_TYPE },
        body,
      });
      expect(unsigned.status, 'no signature').toBe(401);
      const wrong = await t.post(body, { signature: slackSignature('not-the-signing-secret', body, now) });
      expect(wrong.status, 'signed with another secret').toBe(401);
      const tampered = await t.post(body, { signature: slackSignature(SIGNING_SECRET, `${body}&x=1`, now) });
      expect(tampered.status, 'signature of another body').toBe(401);
      const stale = await t.post(body, { timestamp: now - 6 * 60 });
      expect(stale.status, 'signed six minutes ago').toBe(401);
    }

    expect(providerRequests(t)).toEqual(provider);
    expect(await auditRows(t)).toHaveLength(rows);
    expect(t.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId?.startsWith('forged'))).toEqual([]);

    // The confirmation the forged click aimed at is still pending: its requester can use it, once.
    const bought = await confirmAs(t, ADMIN, confirmationId);
    expect(shownText(bought)).toContain(`Bought *${number}*`);
    expect(t.sandbox.requestCount('buyNumber')).toBe(1);
    expect((await sandboxNumbers(t)).map((entry) => entry.number)).toEqual([number]);
    // Forged requests are not delivered late either: by now any would have answered on its response_url.
    expect(t.slack.calls(RESPONSE_URL).filter((call) => call.responseUrlId?.startsWith('forged'))).toEqual([]);
    expect(t.logs.text()).not.toContain(SIGNING_SECRET);
  });
});
