// A request signed with the right secret can still carry a body that is no Slack payload: `payload=null`, an empty
// payload, an array, a number, a string, or no JSON at all. Each is refused with 400 at once, and the app goes on
// serving. Bolt alone throws on `payload=null` outside every handler, which stopped the process: that case is also
// sent to the app's own process. (A failure here in-process would surface as an unhandled rejection in the test run.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { shownText } from '../e2e/support.js';
import { OPERATOR, SIGNING_SECRET, startTestApp, type TestApp } from '../harness/app.js';
import { type AppProcess, appEnvironment, atLeast, isAlive, killLeftovers, spawnApp } from '../harness/app-process.js';
import { type FakeSlack, RESPONSE_URL, startFakeSlack } from '../harness/fake-slack.js';
import { slashCommand } from '../harness/payloads.js';
import { JSON_CONTENT_TYPE, postToSlackApp } from '../harness/signing.js';

const FORM_BODIES = ['payload=null', 'payload=', 'payload=[]', 'payload=42', 'payload=%22text%22', 'payload=not-json'];
const JSON_BODIES = ['null', '[]', '42', '"text"', 'not-json'];

describe('in the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(FORM_BODIES)('answers the signed form body %s with 400', async (body) => {
    expect((await t.post(body)).status).toBe(400);
  });

  it.each(JSON_BODIES)('answers the signed JSON body %s with 400', async (body) => {
    expect((await t.post(body, { contentType: JSON_CONTENT_TYPE })).status).toBe(400);
  });

  it('still refuses such a body unsigned with 401, and then serves a command', async () => {
    expect((await t.post('payload=null', { signature: 'v0=0000' })).status).toBe(401);
    const help = await t.command('help', OPERATOR);
    expect(help.status).toBe(200);
    expect(shownText(await t.respondedTo(help.responseUrlId))).toContain('/voice');
  });
});

describe("in the app's own process", () => {
  let slack: FakeSlack;
  let sandbox: Sandbox;
  let dir: string;
  let app: AppProcess;
  beforeAll(async () => {
    slack = await startFakeSlack();
    sandbox = await startSandbox({ port: 0 });
    dir = await mkdtemp(join(tmpdir(), 'voice-ops-malformed-'));
  });
  afterAll(async () => {
    killLeftovers();
    await sandbox?.close();
    await slack?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a signed payload=null with 400 and keeps serving', async () => {
    app = spawnApp({ via: 'node', env: appEnvironment(slack, sandbox, join(dir, 'voice-ops.db')) });
    const { eventsUrl, pid } = await app.ready;

    expect((await postToSlackApp(eventsUrl, SIGNING_SECRET, 'payload=null')).status).toBe(400);

    const command = slashCommand({ text: 'help', userId: OPERATOR, responseUrl: slack.respondUrl('after-null') });
    const acked = await postToSlackApp(eventsUrl, SIGNING_SECRET, command);
    expect(acked.status).toBe(200);
    slack.showAcknowledgement('after-null', acked.json);
    const help = await slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === 'after-null');
    expect(shownText(help)).toContain('/voice');
    expect(isAlive(pid)).toBe(true);
    expect(atLeast(app.entries(), 50)).toEqual([]);
  });
});
