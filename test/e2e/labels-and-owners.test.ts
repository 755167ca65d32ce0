// Labels and owners, one number or agent at a time: `/voice label` and `/voice own` change them at once (an agent by
// name too), the answer offers Undo and the change is announced; cards show them and open their form; histories tell
// them; Undo asks for a Confirm and restores them exactly, or refuses when they changed since; bad input changes
// nothing; a team's number is changed by its members and admins, and anyone else is told who owns it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTION, CALLBACK, INPUT } from '../../src/slack/ids.js';
import { ADMIN, OPERATOR, type TestApp } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import { selectInput, textInput } from '../harness/payloads.js';
import {
  announcedWith,
  blocksOf,
  buttonValues,
  confirmAs,
  createAgentThroughApp,
  hasElement,
  onlyButton,
  press,
  respondedWith,
  rowsOf,
  type SandboxAgent,
  type SandboxNumber,
  shownText,
  startSeededApp,
  suggested,
  viewOf,
} from './support.js';

/** The sales team's user group; the fake Slack lists its handle as `@s0sales`. */
const SALES = 'S0SALES';
/** An operator through the sales group, and no one else's. */
const SALES_MEMBER = 'USALES';
const MINUTE = 60_000;

let t: TestApp;
let numbers: SandboxNumber[];
let agent: (index: number) => SandboxAgent;
let offset = 0;

beforeAll(async () => {
  ({ t, numbers, agent } = await startSeededApp(
    { agents: 2, numbers: 6, routed: 0 },
    {
      operators: [OPERATOR, SALES],
      groups: { [SALES]: [SALES_MEMBER] },
      now: () => new Date(Date.now() + offset),
    },
  ));
});
afterAll(async () => {
  await t?.close();
});

const number = (index: number): string => {
  const found = numbers[index];
  if (!found) throw new Error(`no seeded number ${index}`);
  return found.number;
};

/** `/voice TEXT` as `user`, and its answer once the app is done with it (the announcement follows the answer). */
async function ask(text: string, user = OPERATOR): Promise<SlackCall> {
  // Past the minute in which one person's changes share one announcement: each is announced with its own Undo.
  offset += 2 * MINUTE;
  const answer = await t.respondedTo((await t.command(text, user)).responseUrlId);
  await t.settled();
  return answer;
}

/** The labels and owner the app keeps for a number or an agent. */
async function tagsOf(subject: string): Promise<{ labels: string[]; owner: string | null } | undefined> {
  const [row] = await rowsOf<{ labels: string; owner: string | null }>(
    t,
    'SELECT labels, owner FROM tags WHERE subject = ?',
    [subject],
  );
  return row ? { labels: JSON.parse(row.labels), owner: row.owner } : undefined;
}

/** Presses Undo (from an answer or an announcement) as `user`, and confirms what it asks: what is finally shown. */
async function undoAndConfirm(undoValue: string, user = OPERATOR): Promise<{ asked: SlackCall; done: SlackCall }> {
  const asked = await t.respondedTo((await press(t, user, ACTION.undoChange, undoValue)).responseUrlId);
  return { asked, done: await confirmAs(t, user, onlyButton(blocksOf(asked), ACTION.confirmChange)) };
}

describe('labels and owners by command', () => {
  it('label a number at once, answered with Undo, announced, on its card and in its history', async () => {
    const done = await ask(`label ${number(0)} +VIP team:east`);
    expect(shownText(done)).toContain(`Labelled *${number(0)}*: added labels \`team:east\`, \`vip\``);
    expect(hasElement(blocksOf(done), ACTION.undoChange)).toBe(true);
    const announcement = await announcedWith(t, `labelled *${number(0)}*`);
    expect(announcement.text).toContain(`<@${OPERATOR}> labelled`);
    // The group's handle, as a slash command carries a mention, is found among the workspace's user groups.
    const owned = await ask(`own ${number(0)} @s0sales`, SALES_MEMBER);
    expect(shownText(owned)).toContain(`owner now <!subteam^${SALES}> (was nobody)`);
    expect(await tagsOf(number(0))).toEqual({ labels: ['team:east', 'vip'], owner: SALES });

    const card = await ask(`numbers ${number(0)}`);
    expect(shownText(card)).toContain(`Labels: \`team:east\`, \`vip\` · Owner: <!subteam^${SALES}>`);
    const history = shownText(await ask(`history ${number(0)}`))
      .split('\n')
      .filter((line) => line.startsWith('•'));
    expect(history[0]).toMatch(
      new RegExp(`owner now <!subteam\\^${SALES}> \\(was nobody\\) · <@${SALES_MEMBER}> · command`),
    );
    expect(history[1]).toMatch(/added labels `team:east`, `vip` · <@UOPERATOR> · command · audit #\d+/);
  });

  it('label and own an agent by its name, on its card and in its history; several of a name are chosen from', async () => {
    const { agent: desk } = await createAgentThroughApp(t, OPERATOR, 'Sales Desk');
    await ask('label agent "sales desk" inbound');
    const owned = await ask(`own agent Sales Desk <!subteam^${SALES}|@sales-team>`, SALES_MEMBER);
    expect(shownText(owned)).toContain(`Labelled *Sales Desk* (\`${desk.id}\`): owner now <!subteam^${SALES}>`);
    expect(await tagsOf(desk.id)).toEqual({ labels: ['inbound'], owner: SALES });
    expect(shownText(await ask(`agents ${desk.id}`))).toContain(`Labels: \`inbound\` · Owner: <!subteam^${SALES}>`);
    expect(shownText(await ask(`history ${desk.id}`))).toContain('added label `inbound` · <@UOPERATOR> · command');

    await createAgentThroughApp(t, OPERATOR, 'Twin Desk');
    const { agent: second } = await createAgentThroughApp(t, OPERATOR, 'Twin Desk');
    const choice = await ask('label agent "Twin Desk" +night');
    const values = buttonValues(blocksOf(choice), ACTION.chooseAgent);
    expect(values).toHaveLength(2);
    const chosen = values.find((value) => value.includes(second.id)) ?? '';
    await respondedWith(t, (await press(t, OPERATOR, ACTION.chooseAgent, chosen)).responseUrlId, 'Labelled');
    await t.settled();
    expect(await tagsOf(second.id)).toEqual({ labels: ['night'], owner: null });
  });

  it('answer bad input with what is wrong, and change nothing', async () => {
    await ask(`label ${number(1)} +blue`);
    const cases: [string, string][] = [
      [`label ${number(1)} +red -red`, 'red is both added and removed: say which.'],
      [`label ${number(1)} +blue`, 'already set: nothing was changed'],
      [`label ${number(1)} +Not/ok!`, 'is not a label'],
      [`label +19995550000 +red`, 'is not one of your numbers'],
      ['label agent "No Such Desk" +red', 'No agent is named'],
      [`own ${number(1)} @nosuchteam`, 'No user group is called @nosuchteam'],
      [`label ${number(1)}`, 'Give labels to add'],
    ];
    for (const [text, said] of cases) expect(shownText(await ask(text))).toContain(said);
    expect(await tagsOf(number(1))).toEqual({ labels: ['blue'], owner: null });
  });
});

describe('the card’s Labels form', () => {
  it('opens prefilled, offers nobody and the teams, and changes what was edited against what the card showed', async () => {
    await ask(`label ${number(2)} +old +keep`);
    const card = await ask(`numbers ${number(2)}`);
    // A member of the team, who may give it to the team.
    const pressed = await press(t, SALES_MEMBER, ACTION.editLabels, onlyButton(blocksOf(card), ACTION.editLabels));
    const opened = viewOf(await t.slack.waitFor('views.open', (call) => call.body.trigger_id === pressed.triggerId));
    expect(opened.callback_id).toBe(CALLBACK.labels);
    const labelsBlock = opened.blocks.find((block) => block.block_id === INPUT.labels.block);
    expect(labelsBlock?.element).toMatchObject({ initial_value: 'keep old' });
    const owners = await suggested(t, INPUT.owner, 'sales');
    expect(owners.options.map((entry) => entry.value)).toEqual(['nobody', SALES]);

    const submit = (labels: string, owner: string | null) =>
      t.submit({
        userId: SALES_MEMBER,
        viewId: 'V_LABELS',
        callbackId: CALLBACK.labels,
        privateMetadata: opened.private_metadata,
        stateValues: {
          [INPUT.labels.block]: { [INPUT.labels.action]: textInput(labels) },
          [INPUT.owner.block]: { [INPUT.owner.action]: selectInput(owner) },
        },
      });
    const bad = await submit('keep Bad!', null);
    expect(bad.json).toMatchObject({ response_action: 'errors', errors: { [INPUT.labels.block]: /is not a label/ } });
    const same = await submit('old, keep', 'nobody');
    expect(same.json).toMatchObject({
      response_action: 'errors',
      errors: { [INPUT.labels.block]: /Nothing to change/ },
    });
    // Meanwhile someone adds a label the form never showed: the form's submission leaves it.
    await ask(`label ${number(2)} +added-since`);
    offset += 2 * MINUTE;
    expect((await submit('keep, NEW', SALES)).json).toMatchObject({ response_action: 'update' });
    const done = await t.slack.waitFor(
      'views.update',
      (call) => call.body.view_id === 'V_LABELS' && shownText(call).includes('Labelled'),
    );
    expect(shownText(done)).toContain('added label `new`; removed label `old`; owner now');
    await t.settled();
    expect(await tagsOf(number(2))).toEqual({ labels: ['added-since', 'keep', 'new'], owner: SALES });
  });
});

describe('Undo of a label change', () => {
  it('asks for a Confirm, from the answer or the announcement, and restores labels and owner exactly', async () => {
    await ask(`label ${number(3)} +a +b`);
    const done = await ask(`label ${number(3)} -a +c`);
    const { asked, done: undone } = await undoAndConfirm(onlyButton(blocksOf(done), ACTION.undoChange));
    expect(shownText(asked)).toContain(`On *${number(3)}*: add \`a\`; remove \`c\``);
    expect(shownText(undone)).toContain('added label `a`; removed label `c`');
    expect(await tagsOf(number(3))).toEqual({ labels: ['a', 'b'], owner: null });

    // An admin undoes an operator's gift to a team from its announcement: nobody owns it again.
    await ask(`own ${number(3)} @s0sales`, SALES_MEMBER);
    const announcement = await announcedWith(t, `labelled *${number(3)}*: owner now`);
    await undoAndConfirm(onlyButton(announcement.blocks, ACTION.undoChange), ADMIN);
    expect(await tagsOf(number(3))).toEqual({ labels: ['a', 'b'], owner: null });
  });

  it('is refused as changed since when the labels moved after the change, and changes nothing', async () => {
    const first = await ask(`label ${number(4)} +x`);
    await ask(`label ${number(4)} +y`);
    const refused = await t.respondedTo(
      (await press(t, OPERATOR, ACTION.undoChange, onlyButton(blocksOf(first), ACTION.undoChange))).responseUrlId,
    );
    expect(shownText(refused)).toContain(
      `The labels or the owner of ${number(4)} were changed since: nothing was undone.`,
    );
    expect(hasElement(blocksOf(refused), ACTION.confirmChange)).toBe(false);
    expect(await tagsOf(number(4))).toEqual({ labels: ['x', 'y'], owner: null });
  });
});

describe('a team’s numbers', () => {
  it('are labelled by the team’s members; another operator is refused with a message naming the owner', async () => {
    await ask(`own ${number(5)} ${SALES}`, ADMIN);
    const member = await ask(`label ${number(5)} +sales-line`, SALES_MEMBER);
    expect(shownText(member)).toContain('added label `sales-line`');
    const refused = await ask(`label ${number(5)} +mine`);
    expect(shownText(refused)).toContain(`${number(5)} is owned by <!subteam^${SALES}>: only its members`);
    expect(await tagsOf(number(5))).toEqual({ labels: ['sales-line'], owner: SALES });
    // The team's agent too: an operator outside the team cannot give it away.
    await ask(`own agent ${agent(0).id} ${SALES}`, ADMIN);
    expect(shownText(await ask(`own agent ${agent(0).id} nobody`))).toContain(`is owned by <!subteam^${SALES}>`);
    expect(await tagsOf(agent(0).id)).toEqual({ labels: [], owner: SALES });
  });

  it('are given only to a team its maker is in: another is refused, naming it, and nothing changes', async () => {
    const before = await tagsOf(number(1));
    const refused = await ask(`own ${number(1)} ${SALES}`);
    expect(shownText(refused)).toContain(`<!subteam^${SALES}> is a team you are not in`);
    expect(await tagsOf(number(1))).toEqual(before);
    const given = await ask(`own ${number(1)} ${SALES}`, SALES_MEMBER);
    expect(shownText(given)).toContain(`owner now <!subteam^${SALES}>`);
  });
});
