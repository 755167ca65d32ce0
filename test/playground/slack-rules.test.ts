// The stand-in for Slack refuses what Slack refuses: blocks and views over Slack's limits, trigger_ids used late or
// twice, response_urls used too often or too late; and it shows what Slack shows: ephemeral replies to one person,
// the original message replaced or deleted in place, a modal stack of at most three views. Checked through
// @slack/web-api and plain HTTP, as the app reaches it.
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeSlack, startFakeSlack } from '../../src/playground/fake-slack.js';

const TOKEN = 'xoxb-rules-token';
let clock = Date.now();
let fake: FakeSlack;
let strict: FakeSlack;
let client: webApi.WebClient;
let strictClient: webApi.WebClient;

beforeAll(async () => {
  fake = await startFakeSlack({ now: () => clock });
  strict = await startFakeSlack({ strict: true, now: () => clock });
  strict.workspace.addPerson({ id: 'UANA', name: 'Ana' });
  strict.workspace.addChannel({ id: 'COPS', name: 'ops' });
  const options = { retryConfig: { retries: 0 }, rejectRateLimitedCalls: true };
  client = new webApi.WebClient(TOKEN, { ...options, slackApiUrl: fake.apiUrl });
  strictClient = new webApi.WebClient(TOKEN, { ...options, slackApiUrl: strict.apiUrl });
});

afterAll(async () => {
  await fake.close();
  await strict.close();
});

const section = (text: string) => ({ type: 'section' as const, text: { type: 'mrkdwn' as const, text } });
const modal = (blocks: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Rules' },
  close: { type: 'plain_text', text: 'Close' },
  blocks,
  ...extra,
});

/** The platform error @slack/web-api throws for `ok: false`, as `{ error, messages }`. */
async function refusedWith(call: Promise<unknown>): Promise<{ error: string; messages: string[] }> {
  try {
    await call;
  } catch (error) {
    const data = (error as { data?: { error?: string; response_metadata?: { messages?: string[] } } }).data;
    return { error: data?.error ?? 'none', messages: data?.response_metadata?.messages ?? [] };
  }
  throw new Error('the call was accepted');
}

describe("Slack's Block Kit limits", () => {
  it('accepts a message and a view within every limit', async () => {
    const blocks = [
      { type: 'header', text: { type: 'plain_text', text: 'Numbers' } },
      section('x'.repeat(3000)),
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'B'.repeat(75) },
            action_id: 'a',
            value: 'v',
            style: 'danger',
          },
        ],
      },
    ];
    await expect(client.chat.postMessage({ channel: 'C1', text: 'ok', blocks })).resolves.toMatchObject({ ok: true });
    const trigger = fake.issueTriggerId('UANA');
    await expect(client.views.open({ trigger_id: trigger, view: modal(blocks) as never })).resolves.toMatchObject({
      ok: true,
    });
  });

  it.each([
    [
      'a section text of 3,001 characters',
      [section('x'.repeat(3001))],
      /less than 3001 characters \[json-pointer:\/blocks\/0\/text\/text\]/,
    ],
    [
      '51 blocks in a message',
      Array.from({ length: 51 }, () => section('x')),
      /less than 51 items \[json-pointer:\/blocks\]/,
    ],
    ['an empty section text', [section('')], /more than 0 characters/],
    ['an unknown block type', [{ type: 'fancy' }], /not a block type Slack knows \[json-pointer:\/blocks\/0\/type\]/],
    [
      'a button without a label, with an empty value',
      [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' }, value: '' }] }],
      /more than 0 characters \[json-pointer:\/blocks\/0\/elements\/0\/value\]/,
    ],
    [
      'a button style Slack has not',
      [{ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Go' }, style: 'green' }] }],
      /must be primary or danger/,
    ],
    [
      'two blocks with one block_id',
      [
        { ...section('a'), block_id: 'b' },
        { ...section('b'), block_id: 'b' },
      ],
      /block_id\]/,
    ],
  ])('refuses %s with invalid_blocks and the reason', async (_what, blocks, reason) => {
    const refused = await refusedWith(client.chat.postMessage({ channel: 'C1', text: 'x', blocks: blocks as never }));
    expect(refused.error).toBe('invalid_blocks');
    expect(refused.messages.join('\n')).toMatch(reason);
    expect(fake.workspace.refusals().at(-1)).toMatchObject({ method: 'chat.postMessage', error: 'invalid_blocks' });
  });

  const select = (options: { text: string; value: string }[]) => ({
    type: 'input',
    block_id: 'pick',
    label: { type: 'plain_text', text: 'Pick' },
    element: {
      type: 'static_select',
      action_id: 'value',
      options: options.map(({ text, value }) => ({ text: { type: 'plain_text', text }, value })),
    },
  });
  const submit = { submit: { type: 'plain_text', text: 'Save' } };
  const input = (element: Record<string, unknown>) => ({
    type: 'input',
    label: { type: 'plain_text', text: 'Pick' },
    element: { action_id: 'value', ...element },
  });
  const box = (value: string) => ({ text: { type: 'plain_text', text: value }, value });
  const boxes = (count: number) => Array.from({ length: count }, (_, index) => box(`b${index}`));

  it('accepts people, channel and checkbox pickers within their limits', async () => {
    const view = modal(
      [
        input({ type: 'multi_users_select', initial_users: ['UANA'], max_selected_items: 5 }),
        input({
          type: 'multi_conversations_select',
          initial_conversations: ['COPS'],
          max_selected_items: 1,
          filter: { include: ['public', 'private'], exclude_bot_users: true },
        }),
        input({
          type: 'checkboxes',
          options: [...boxes(9), { text: { type: 'mrkdwn', text: '*b9*' }, value: 'b9' }],
          initial_options: [box('b0')],
        }),
      ].map((block, index) => ({ ...block, block_id: `b${index}` })),
      submit,
    );
    await expect(
      client.views.open({ trigger_id: fake.issueTriggerId('UANA'), view: view as never }),
    ).resolves.toMatchObject({ ok: true });
  });

  it.each([
    [
      '101 blocks',
      modal(Array.from({ length: 101 }, () => section('x'))),
      /less than 101 items \[json-pointer:\/view\/blocks\]/,
    ],
    [
      'a title of 25 characters',
      modal([], { title: { type: 'plain_text', text: 'T'.repeat(25) } }),
      /view\/title\/text/,
    ],
    [
      'an option text of 76 characters',
      modal([select([{ text: 'o'.repeat(76), value: 'v' }])], submit),
      /less than 76/,
    ],
    [
      'an option value of 151 characters',
      modal([select([{ text: 'o', value: 'v'.repeat(151) }])], submit),
      /less than 151/,
    ],
    ['input blocks without a submit button', modal([select([{ text: 'o', value: 'v' }])]), /submit\]/],
    [
      'eleven checkboxes',
      modal([input({ type: 'checkboxes', options: boxes(11) })], submit),
      /less than 11 items \[json-pointer:\/view\/blocks\/0\/element\/options\]/,
    ],
    [
      'a checkbox ticked at first that is not one of its options',
      modal([input({ type: 'checkboxes', options: boxes(2), initial_options: [box('other')] })], submit),
      /match one of the options \[json-pointer:\/view\/blocks\/0\/element\/initial_options\/0\]/,
    ],
    [
      'a people picker that allows no one',
      modal([input({ type: 'multi_users_select', max_selected_items: 0 })], submit),
      /at least 1 \[json-pointer:\/view\/blocks\/0\/element\/max_selected_items\]/,
    ],
    [
      'a channel picker filtering on nothing',
      modal([input({ type: 'multi_conversations_select', filter: {} })], submit),
      /must have include[^[]*\[json-pointer:\/view\/blocks\/0\/element\/filter\]/,
    ],
    [
      'a channel picker including no kind of conversation',
      modal([input({ type: 'multi_conversations_select', filter: { include: [] } })], submit),
      /filter\/include\]/,
    ],
    ['private_metadata of 3,001 characters', modal([], { private_metadata: 'm'.repeat(3001) }), /private_metadata/],
  ])('refuses a view with %s: invalid_arguments and the reason', async (_what, view, reason) => {
    const refused = await refusedWith(
      client.views.open({ trigger_id: fake.issueTriggerId('UANA'), view: view as never }),
    );
    expect(refused.error).toBe('invalid_arguments');
    expect(refused.messages.join('\n')).toMatch(reason);
  });

  it('refuses a response_url post with invalid blocks: 400, invalid_blocks', async () => {
    const response = await fetch(fake.respondUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x', blocks: [section('x'.repeat(3001))] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ ok: false, error: 'invalid_blocks' });
  });

  it('refuses a message with neither text nor blocks: no_text', async () => {
    expect((await refusedWith(client.chat.postMessage({ channel: 'C1' } as never))).error).toBe('no_text');
  });
});

describe('trigger_ids', () => {
  it('open one view, once, within 3 seconds', async () => {
    const trigger = fake.issueTriggerId('UANA');
    await expect(client.views.open({ trigger_id: trigger, view: modal([]) as never })).resolves.toMatchObject({
      ok: true,
    });
    const again = await refusedWith(client.views.open({ trigger_id: trigger, view: modal([]) as never }));
    expect(again.error).toBe('exchanged_trigger_id');

    const late = fake.issueTriggerId('UANA');
    clock += 3_001;
    expect((await refusedWith(client.views.open({ trigger_id: late, view: modal([]) as never }))).error).toBe(
      'expired_trigger_id',
    );
  });

  it('are refused when Slack never issued them', async () => {
    const refused = await refusedWith(strictClient.views.open({ trigger_id: '1.2.abc', view: modal([]) as never }));
    expect(refused.error).toBe('invalid_trigger_id');
  });
});

describe('response_urls', () => {
  const post = (url: string, body: Record<string, unknown>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('take five posts, then answer used_url', async () => {
    const url = fake.respondUrl('five', { userId: 'UANA', channel: 'COPS' });
    for (let i = 1; i <= 5; i++) expect((await post(url, { text: `reply ${i}` })).status).toBe(200);
    const sixth = await post(url, { text: 'reply 6' });
    expect(sixth.status).toBe(404);
    expect(await sixth.json()).toMatchObject({ error: 'used_url' });
    // One of a test's own making is not Slack's: it takes whatever it is sent.
    const own = fake.respondUrl('made-up');
    for (let i = 1; i <= 6; i++) expect((await post(own, { text: `reply ${i}` })).status).toBe(200);
  });

  it('expire after 30 minutes', async () => {
    const url = fake.respondUrl('late', { userId: 'UANA', channel: 'COPS' });
    clock += 30 * 60_000 + 1;
    const late = await post(url, { text: 'too late' });
    expect(late.status).toBe(404);
    expect(await late.json()).toMatchObject({ error: 'expired_url' });
  });

  it('post ephemeral replies seen by one person, and replace or delete the message that held the button', async () => {
    const { workspace } = strict;
    const first = strict.respondUrl('cmd', { userId: 'UANA', channel: 'COPS' });
    await post(first, { text: 'Buy +1?', blocks: [section('Buy *+1*?')] });
    const prompt = workspace.conversationFor('COPS', 'UANA').at(-1);
    expect(prompt).toMatchObject({ visibleTo: 'UANA', text: 'Buy +1?', revision: 0 });
    expect(workspace.conversationFor('COPS', 'UBEA')).toEqual([]);

    const button = strict.respondUrl('btn', { userId: 'UANA', channel: 'COPS', messageTs: prompt?.ts });
    await post(button, { replace_original: true, text: 'Working…' });
    await post(button, { replace_original: true, text: 'Bought +1.' });
    const replaced = workspace.conversationFor('COPS', 'UANA');
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toMatchObject({ key: prompt?.key, text: 'Bought +1.', revision: 2 });

    await post(button, { text: 'By the way: the channel did not get it.' });
    expect(workspace.conversationFor('COPS', 'UANA')).toHaveLength(2);
    await post(button, { delete_original: true });
    expect(workspace.conversationFor('COPS', 'UANA').map((message) => message.text)).toEqual([
      'By the way: the channel did not get it.',
    ]);

    await post(strict.respondUrl('public', { userId: 'UANA', channel: 'COPS' }), {
      response_type: 'in_channel',
      text: 'for everyone',
    });
    expect(workspace.conversationFor('COPS', 'UBEA').map((message) => message.text)).toEqual(['for everyone']);
  });

  it('are refused when Slack never issued them', async () => {
    const response = await post(strict.respondUrl('made-up'), { text: 'x' });
    expect(response.status).toBe(404);
  });
});

describe('modals', () => {
  it('stack at most three views, answer not_found once closed, and take the answers to a submission', async () => {
    const { workspace } = strict;
    const open = (push: boolean, title: string) =>
      (push ? strictClient.views.push : strictClient.views.open).call(strictClient.views, {
        trigger_id: strict.issueTriggerId('UANA'),
        view: modal([], { title: { type: 'plain_text', text: title } }) as never,
      });
    const root = await open(false, 'One');
    await open(true, 'Two');
    await open(true, 'Three');
    expect((await refusedWith(open(true, 'Four'))).error).toBe('push_limit_reached');
    expect(workspace.modalDepth('UANA')).toBe(3);

    const top = workspace.topModal('UANA');
    workspace.answerSubmission('UANA', top?.id ?? '', top?.revision ?? 0, {});
    expect(workspace.modalDepth('UANA')).toBe(2);
    workspace.answerSubmission('UANA', workspace.topModal('UANA')?.id ?? '', 0, { response_action: 'clear' });
    expect(workspace.modalDepth('UANA')).toBe(0);

    const gone = await refusedWith(
      strictClient.views.update({ view_id: root.view?.id ?? '', view: modal([]) as never }),
    );
    expect(gone.error).toBe('not_found');
  });

  it('show inline errors only for input blocks of the view, and refuse others', async () => {
    const { workspace } = strict;
    const input = {
      type: 'input',
      block_id: 'name',
      label: { type: 'plain_text', text: 'Name' },
      element: { type: 'plain_text_input', action_id: 'value' },
    };
    await strictClient.views.open({
      trigger_id: strict.issueTriggerId('UANA'),
      view: modal([input], { submit: { type: 'plain_text', text: 'Save' } }) as never,
    });
    const view = workspace.topModal('UANA');
    const errors = { response_action: 'errors', errors: { name: 'Name is required' } };
    expect(workspace.answerSubmission('UANA', view?.id ?? '', 0, errors)).toEqual({ ok: true });
    expect(workspace.topModal('UANA')?.errors).toEqual({ name: 'Name is required' });
    const wrong = workspace.answerSubmission('UANA', view?.id ?? '', 0, {
      response_action: 'errors',
      errors: { nope: 'x' },
    });
    expect(wrong).toMatchObject({ ok: false, error: 'invalid_arguments' });
  });
});
