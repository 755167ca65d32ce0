// Roles: everyone may look; operators may buy, create and map; only admins may release and delete. A denial says who
// can grant the role and where: the variable (VOICE_OPERATORS, VOICE_ADMINS) where the environment gives the lists,
// the operators or admins in /voice settings where they were set in Slack; it is audited, and nothing reaches the
// provider. Every test runs with the lists from each source: they hold the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type SentRequest, startTestApp, type TestApp, VIEWER } from '../harness/app.js';
import {
  auditRows,
  blocksOf,
  buyThroughApp,
  createAgentThroughApp,
  EPHEMERAL,
  hasElement,
  homeRefreshesDone,
  mapThroughApp,
  providerRequests,
  ruleWords,
  type SandboxAgent,
  SETTINGS_SOURCES,
  type SettingsSource,
  sandboxNumbers,
  shownText,
  voiceNumber,
} from './support.js';

interface Attempt {
  what: string;
  /** The audited action the user attempted. */
  attempted: string;
  /** The variable that gives the list granting the role, when the environment gives it. */
  variable: 'VOICE_OPERATORS' | 'VOICE_ADMINS';
  send: (t: TestApp, user: string) => Promise<SentRequest>;
}

/** What the scene holds: an agent, a number routed to it, and a number still for sale. */
interface Scene {
  agent: SandboxAgent;
  owned: string;
  forSale: string;
}

const OPERATORS = 'VOICE_OPERATORS';
const ADMINS = 'VOICE_ADMINS';

const command = (text: string) => (t: TestApp, user: string) => t.command(text, user);
const button = (actionId: string, value: string) => (t: TestApp, user: string) =>
  t.action({ userId: user, actionId, value, container: EPHEMERAL });

/** Every way to ask for a change: each command (with and without its arguments) and each button. */
function attempts({ agent, owned, forSale }: Scene): Attempt[] {
  const rows: [what: string, attempted: string, variable: Attempt['variable'], send: Attempt['send']][] = [
    ['buy', 'number.buy', OPERATORS, command(`numbers buy ${forSale}`)],
    ['map', 'routing.map', OPERATORS, command(`map ${owned} ${agent.id}`)],
    ['map (form)', 'routing.map', OPERATORS, command('map')],
    ['create', 'agent.create', OPERATORS, command('agents create "Night shift" en-US')],
    ['create (form)', 'agent.create', OPERATORS, command('agents create')],
    ['release', 'number.release', ADMINS, command(`numbers release ${owned}`)],
    ['delete', 'agent.delete', ADMINS, command(`agents delete ${agent.id}`)],
    ['Buy button', 'number.buy', OPERATORS, button(ACTION.buyNumber, forSale)],
    ['Map button', 'routing.map', OPERATORS, button(ACTION.mapNumber, owned)],
    ['Create agent button', 'agent.create', OPERATORS, button(ACTION.createAgent, '')],
    ['Release button', 'number.release', ADMINS, button(ACTION.releaseNumber, owned)],
    ['Delete button', 'agent.delete', ADMINS, button(ACTION.deleteAgent, agent.id)],
  ];
  return rows.map(([what, attempted, variable, send]) => ({ what, attempted, variable, send }));
}

/** An agent and a routed number, set up by the admin through the app. */
async function setScene(t: TestApp): Promise<Scene> {
  const { agent } = await createAgentThroughApp(t, ADMIN, 'Front desk');
  const owned = await voiceNumber(t);
  await buyThroughApp(t, ADMIN, owned);
  await mapThroughApp(t, ADMIN, owned, agent.id);
  return { agent, owned, forSale: await voiceNumber(t) };
}

/**
 * Makes the attempt and proves it was refused: the message (who can grant the role, and where, as the lists' source
 * says), one audited denial, no provider call, no form.
 */
async function expectDenied(t: TestApp, source: SettingsSource, user: string, attempt: Attempt): Promise<void> {
  const words = ruleWords(source);
  await homeRefreshesDone(t);
  const provider = providerRequests(t);
  const rowsBefore = (await auditRows(t)).length;
  const formsBefore = t.slack.calls('views.open').length;

  const sent = await attempt.send(t, user);
  const what = `${user}: ${attempt.what}`;
  expect(sent.status, what).toBe(200);
  const answer = shownText(await t.respondedTo(sent.responseUrlId));
  expect(answer, what).toContain(
    `${words.grantor} can add your user id (${user}) or one of your user groups to ${words.grantedIn(attempt.variable)}.`,
  );

  const rows = (await auditRows(t)).slice(rowsBefore);
  expect(rows, what).toHaveLength(1);
  expect(rows[0], what).toMatchObject({
    actor_id: user,
    action: 'access.denied',
    outcome: 'denied',
    error_code: 'denied',
  });
  expect(JSON.parse(rows[0]?.params ?? '{}'), what).toMatchObject({ attempted: attempt.attempted });
  expect(providerRequests(t), `${what}: nothing reaches the provider`).toEqual(provider);
  expect(t.slack.calls('views.open'), `${what}: no form opens`).toHaveLength(formsBefore);
}

describe.each(SETTINGS_SOURCES)('roles from %s', (settingsFrom) => {
  describe('a viewer (in neither list)', () => {
    let t: TestApp;
    let scene: Scene;
    beforeAll(async () => {
      t = await startTestApp({ settingsFrom });
      scene = await setScene(t);
    });
    afterAll(async () => {
      await t.close();
    });

    it('is denied every change, by command and by button', async () => {
      for (const attempt of attempts(scene)) await expectDenied(t, settingsFrom, VIEWER, attempt);
      expect((await sandboxNumbers(t)).map((entry) => entry.number)).toEqual([scene.owned]);
    });

    it('can still read help, agents, numbers, search results and the audit log', async () => {
      const read = async (text: string) => {
        const sent = await t.command(text, VIEWER);
        return t.respondedTo(sent.responseUrlId);
      };
      const help = shownText(await read('help'));
      expect(help).toContain('/voice numbers search');
      expect(help).toContain('/voice audit');
      expect(help).not.toContain('/voice numbers buy');
      expect(help).not.toContain('/voice agents delete');
      expect(help).toContain('you can look but not change anything');
      expect(help).toContain(ruleWords(settingsFrom).askForRole);

      const agents = await read('agents');
      expect(shownText(agents)).toContain('Front desk');
      expect(shownText(agents)).toContain(scene.owned);
      expect(hasElement(blocksOf(agents), ACTION.deleteAgent)).toBe(false);

      const numbers = await read('numbers');
      expect(shownText(numbers)).toContain(scene.owned);
      expect(hasElement(blocksOf(numbers), ACTION.releaseNumber)).toBe(false);

      const search = await read('numbers search US');
      expect(shownText(search)).toContain(scene.forSale);
      expect(hasElement(blocksOf(search), ACTION.buyNumber)).toBe(false);

      const audit = await read('audit');
      expect(shownText(audit)).toContain(`<@${VIEWER}> attempt to `);
      // Reading changes nothing: the viewer's only audit rows are the denials.
      expect((await auditRows(t)).filter((row) => row.actor_id === VIEWER && row.outcome !== 'denied')).toEqual([]);
    });
  });

  describe('an operator', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ settingsFrom });
    });
    afterAll(async () => {
      await t.close();
    });

    it('may buy, create agents and map, but not release or delete (those need VOICE_ADMINS)', async () => {
      const { agent } = await createAgentThroughApp(t, OPERATOR, 'Front desk');
      const owned = await voiceNumber(t);
      await buyThroughApp(t, OPERATOR, owned);
      await mapThroughApp(t, OPERATOR, owned, agent.id);
      expect(t.sandbox.requestCount('createAgent')).toBe(1);
      expect(t.sandbox.requestCount('buyNumber')).toBe(1);
      expect(t.sandbox.requestCount('mapNumber')).toBe(1);
      const succeeded = (await auditRows(t)).filter((row) => row.actor_id === OPERATOR && row.outcome === 'succeeded');
      expect(succeeded.map((row) => row.action)).toEqual(['agent.create', 'number.buy', 'routing.map']);

      const scene = { agent, owned, forSale: await voiceNumber(t) };
      for (const attempt of attempts(scene).filter((candidate) => candidate.variable === ADMINS)) {
        await expectDenied(t, settingsFrom, OPERATOR, attempt);
      }
      expect(t.sandbox.requestCount('releaseNumber') + t.sandbox.requestCount('deleteAgent')).toBe(0);
    });
  });

  describe('an operator through a user group', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ settingsFrom, operators: ['SOPS'], groups: { SOPS: ['UGROUPIE'] } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('may buy, while someone outside the group may not', async () => {
      const number = await voiceNumber(t);
      await buyThroughApp(t, 'UGROUPIE', number);
      expect(t.sandbox.requestCount('buyNumber')).toBe(1);
      expect((await sandboxNumbers(t)).map((entry) => entry.number)).toEqual([number]);
      const asked = t.slack.calls('usergroups.users.list').map((call) => call.body.usergroup);
      expect(asked).toContain('SOPS');

      const forSale = await voiceNumber(t);
      const buy = command(`numbers buy ${forSale}`);
      await expectDenied(t, settingsFrom, VIEWER, {
        what: 'buy',
        attempted: 'number.buy',
        variable: OPERATORS,
        send: buy,
      });
    });
  });
});
