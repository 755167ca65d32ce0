// Finding by label and owner: `/voice numbers`, `/voice agents` and the bulk commands take `label:X`, `-label:X`,
// `owner:@team` and `unowned`, and lists show each row's labels and owner; a malformed word is answered with what to
// type. `/voice export` prints numbers' tags in a `# labels` part after the routes, and `export as of` the tags then,
// rebuilt from the audit log. /metrics counts numbers and agents per owning team at each reconciler pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/ops/api.js';
import { ADMIN, OPERATOR, OPS_CHANNEL, type TestApp, VIEWER } from '../harness/app.js';
import type { SlackCall } from '../harness/fake-slack.js';
import {
  blocksOf,
  copiedCodeBlock,
  listedAgents,
  listedNumbers,
  readable,
  type SandboxAgent,
  type SandboxNumber,
  sample,
  scrape,
  shownText,
  startSeededApp,
} from './support.js';

const SALES = 'S0SALES';
const SUPPORT = 'S0SUPPORT';
const AS_ADMIN: Actor = { userId: ADMIN, channelId: OPS_CHANNEL, source: 'command' };

let t: TestApp;
let numbers: SandboxNumber[];
let agents: SandboxAgent[];
/** The app's clock, set by the test. */
let clock = Date.parse('2031-05-04T09:00:00Z');

const number = (index: number): string => numbers[index]?.number ?? '';
const agentId = (index: number): string => agents[index]?.id ?? '';

async function reply(text: string, user = VIEWER): Promise<SlackCall> {
  return t.respondedTo((await t.command(text, user)).responseUrlId);
}

async function label(target: string, change: { add?: string[]; remove?: string[]; owner?: string | null }) {
  const done = await t.app.ops.changeLabels(AS_ADMIN, { target, ...change });
  if (!done.ok) throw new Error(done.message);
}

const listed = async (text: string) => listedNumbers(blocksOf(await reply(text)));

beforeAll(async () => {
  ({ t, numbers, agents } = await startSeededApp(
    { agents: 3, numbers: 4, routed: 2 },
    { now: () => new Date(clock), groups: { [SALES]: [OPERATOR], [SUPPORT]: [] } },
  ));
  // 09:00 labels, 10:00 more labels and an owner: the moments the exports as of are read at.
  await label(number(0), { add: ['de', 'team:sales'] });
  await label(number(1), { add: ['old'] });
  clock = Date.parse('2031-05-04T10:00:00Z');
  await label(number(0), { owner: SALES });
  await label(number(2), { add: ['de'], owner: SUPPORT });
  await label(agentId(0), { add: ['support'], owner: SUPPORT });
  await label(agentId(1), { add: ['support'] });
  clock = Date.parse('2031-05-04T11:00:00Z');
});

afterAll(async () => {
  await t?.close();
});

describe('/voice numbers by label and owner', () => {
  it('keeps the numbers with every label given, and none of those excluded', async () => {
    expect(await listed('numbers label:de')).toEqual([number(0), number(2)]);
    expect(await listed('numbers label:de label:team:sales')).toEqual([number(0)]);
    expect(await listed('numbers -label:de')).toEqual([number(1), number(3)]);
    expect(await listed('numbers LABEL:DE -label:team:sales')).toEqual([number(2)]);
  });

  it('keeps the numbers a team owns, named by its mention or its id, or those nobody owns', async () => {
    expect(await listed(`numbers owner:<!subteam^${SALES}|@sales>`)).toEqual([number(0)]);
    expect(await listed(`numbers owner:${SUPPORT} label:de`)).toEqual([number(2)]);
    expect(await listed('numbers unowned')).toEqual([number(1), number(3)]);
  });

  it('says the filter in the title, and each row its labels and owner', async () => {
    const shown = readable(blocksOf(await reply(`numbers label:de -label:old owner:${SALES}`)));
    expect(shown).toContain(`*Phone numbers* · labelled \`de\`, not labelled \`old\`, owned by <!subteam^${SALES}>`);
    expect(shown).toContain(`\`de\` \`team:sales\` · owned by <!subteam^${SALES}>`);
    expect(readable(blocksOf(await reply('numbers label:nothing')))).toContain('No numbers match.');
  });

  it('picks the numbers of a bulk change by label', async () => {
    const plan = shownText(await reply(`map label:de to ${agentId(2)}`, ADMIN));
    expect(plan).toContain(number(0));
    expect(plan).toContain(number(2));
    expect(plan).not.toContain(number(1));
  });

  it('answers a malformed word with what to type', async () => {
    expect(shownText(await reply('numbers label:Team!'))).toContain('`label:Team!`: `Team!` is not a label');
    expect(shownText(await reply('numbers owner:@sales'))).toContain('`owner:@sales` names no team');
    expect(shownText(await reply('numbers unowned owner:S0SALES'))).toContain('Give one owner');
  });
});

describe('/voice agents by label and owner', () => {
  it('keeps the agents the words pick, and shows their labels and owner', async () => {
    expect(listedAgents(blocksOf(await reply('agents label:support')))).toEqual([agentId(0), agentId(1)]);
    expect(listedAgents(blocksOf(await reply(`agents owner:${SUPPORT}`)))).toEqual([agentId(0)]);
    expect(listedAgents(blocksOf(await reply('agents unowned -label:support')))).toEqual([agentId(2)]);
    const shown = readable(blocksOf(await reply('agents label:support')));
    expect(shown).toContain(`\`support\` · owned by <!subteam^${SUPPORT}>`);
    expect(shown).toContain('*AI agents* · labelled `support`');
  });

  it('lists an agent named by its id with a tag filter, rather than showing its card', async () => {
    expect(listedAgents(blocksOf(await reply(`agents ${agentId(0)} unowned`)))).toEqual([]);
  });
});

describe('exports with labels', () => {
  const labelsPart = (exported: string) => exported.slice(exported.indexOf('# labels'));

  it("prints today's labels and owners after the routes, one line per number", async () => {
    const exported = copiedCodeBlock(await reply('export'));
    expect(labelsPart(exported)).toBe(
      [
        '# labels',
        ...[
          `${number(0)} de team:sales <!subteam^${SALES}>`,
          `${number(1)} old`,
          `${number(2)} de <!subteam^${SUPPORT}>`,
        ].sort(),
      ].join('\n'),
    );
  });

  it('prints them as they were at a moment before a label change and after it', async () => {
    const before = copiedCodeBlock(await reply('export as of 2031-05-04T08:30Z'));
    expect(before).not.toContain('# labels');
    const then = copiedCodeBlock(await reply('export as of 2031-05-04T09:30Z'));
    expect(labelsPart(then)).toBe(
      ['# labels', ...[`${number(0)} de team:sales`, `${number(1)} old`].sort()].join('\n'),
    );
    const after = copiedCodeBlock(await reply('export as of 2031-05-04T10:30Z'));
    expect(labelsPart(after)).toBe(labelsPart(copiedCodeBlock(await reply('export'))));
  });
});

describe('/metrics per owner', () => {
  it("counts numbers and agents by owning team, and those nobody owns, at the reconciler's pass", async () => {
    await reply('numbers');
    await reply('agents');
    await t.app.reconcile();
    const { text } = await scrape(t);
    expect(sample(text, 'voice_ops_numbers_by_owner', { owner: SALES })).toBe(1);
    expect(sample(text, 'voice_ops_numbers_by_owner', { owner: SUPPORT })).toBe(1);
    expect(sample(text, 'voice_ops_numbers_by_owner', { owner: 'none' })).toBe(2);
    expect(sample(text, 'voice_ops_agents_by_owner', { owner: SUPPORT })).toBe(1);
    expect(sample(text, 'voice_ops_agents_by_owner', { owner: 'none' })).toBe(2);
    expect(sample(text, 'voice_ops_agents_by_owner', { owner: SALES })).toBe(0);
  });

  it('follows an owner changed, at the next pass', async () => {
    await label(number(1), { owner: SALES });
    await t.app.reconcile();
    const { text } = await scrape(t);
    expect(sample(text, 'voice_ops_numbers_by_owner', { owner: SALES })).toBe(2);
    expect(sample(text, 'voice_ops_numbers_by_owner', { owner: 'none' })).toBe(1);
  });
});
