// What people read says what happened in words, as Slack shows it: a history's heading without stray asterisks, a
// re-route and its Undo as what they are in `/voice changes since`, audit actions as words and people as mentions, a
// refused command's reason without look-alike backticks, and a "did you mean" that names the role it needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type TestApp, VIEWER } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import { asSlackShows } from '../harness/slack-mrkdwn.js';
import {
  applyPlan,
  blocksOf,
  confirmAs,
  hasElement,
  onlyButton,
  press,
  readable,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
} from './support.js';

const HOUR = 3_600_000;

let t: TestApp;
let agent: (index: number) => SandboxAgent;
let numbers: SandboxNumber[];
let offset = 0;

beforeAll(async () => {
  ({ t, agent, numbers } = await startSeededApp(
    { agents: 2, numbers: 1, routed: 0 },
    { now: () => new Date(Date.now() + offset) },
  ));
});
afterAll(async () => {
  await t?.close();
});

const number = (): string => numbers[0]?.number ?? '';

const ask = async (text: string, user = OPERATOR): Promise<SlackCall> =>
  t.respondedTo((await t.command(text, user)).responseUrlId);

/** `/voice map NUMBER AGENT`, confirmed when it re-routes: what is finally shown. */
async function mapped(agentId: string): Promise<SlackCall> {
  const answer = await ask(`map ${number()} ${agentId}`);
  if (!hasElement(blocksOf(answer), ACTION.confirmChange)) return answer;
  return confirmAs(t, OPERATOR, onlyButton(blocksOf(answer), ACTION.confirmChange));
}

/** The first line of each section, as Slack shows it: the heading of a history page. */
const headingOf = (call: SlackCall): string => asSlackShows(readable(blocksOf(call)).split('\n')[0] ?? '');

describe('a re-route walked back by its Undo', () => {
  beforeAll(async () => {
    await mapped(agent(0).id);
    await t.settled();
    // Two hours on: the re-route and its Undo come after the moment asked about below.
    offset = 2 * HOUR;
    const rerouted = await mapped(agent(1).id);
    const plan = await t.respondedTo(
      (await press(t, OPERATOR, ACTION.undoChange, onlyButton(blocksOf(rerouted), ACTION.undoChange))).responseUrlId,
    );
    expect(shownText(await applyPlan(t, plan))).toContain('Routed 1 of 1 number');
    await t.settled();
  });

  it('reads in `/voice changes since` as routed away and undone, no net change, not as one agent → itself', async () => {
    const shown = shownText(await ask('changes since 1 hour ago'));
    const name = agent(0).name;
    expect(shown).toContain(`*${name}* (\`${agent(0).id}\`) then and now: re-routed, then undone, no net change`);
    expect(shown).not.toContain(`*${name}* (\`${agent(0).id}\`) → *${name}*`);
  });

  it('heads the history of the number and of the agent as Slack shows them, without stray asterisks', async () => {
    expect(headingOf(await ask(`history ${number()}`))).toBe(`History of ${number()}, newest first`);
    expect(headingOf(await ask(`history ${agent(1).id}`))).toBe(
      `History of ${agent(1).name} (${agent(1).id}), newest first`,
    );
  });

  it('lists each change in `/voice audit` in words, the person filtered by as a mention', async () => {
    const shown = readable(blocksOf(await ask(`audit ${OPERATOR}`, VIEWER)));
    expect(shown).toContain(`*Audit log* · by <@${OPERATOR}>:`);
    expect(shown).toContain(`<@${OPERATOR}> routed *${number()}*`);
    expect(shown).toContain(`<@${OPERATOR}> Undo: routed in bulk *1 number* from *${agent(1).name}*`);
    expect(shown).not.toMatch(/`[a-z_]+\.[a-z_]+`/);
    expect(readable(blocksOf(await ask(`audit <@${OPERATOR}>`, VIEWER)))).toBe(shown);
  });
});

describe('a command not understood', () => {
  it('keeps its reason in the audit log in words, shown without look-alike backticks', async () => {
    expect(shownText(await ask('agents create Support german'))).toContain('`german` names a language');
    const failed = shownText(await ask('audit failed', VIEWER));
    expect(failed).toContain(`<@${OPERATOR}> create an agent :no_entry_sign: rejected`);
    expect(failed).toContain('german names a language');
    expect(failed).not.toContain('\u02CB');
  });

  it('suggests the command meant, naming the role it needs when the person lacks it', async () => {
    const typed = `relase ${number()}`;
    const asViewer = shownText(await ask(typed, VIEWER));
    expect(asViewer).toContain(`Did you mean \`/voice numbers release ${number()}\`?`);
    expect(asViewer).toContain('It needs the admin role, and yours is viewer.');
    expect(shownText(await ask(typed, OPERATOR))).toContain('It needs the admin role, and yours is operator.');
    const asAdmin = shownText(await ask(typed, ADMIN));
    expect(asAdmin).toContain(`Did you mean \`/voice numbers release ${number()}\`?`);
    expect(asAdmin).not.toContain('It needs');
  });
});
