// Where a person can be when they use Voice Ops: a group DM, a channel the app was never invited to, a form that
// carries response_urls. Shapes, from Slack's references: a slash command's `channel_id` is a `G…` or `C…` id with
// `channel_name` `mpdm-…` for a group DM and `privategroup` for a private channel the app is not in ("Enabling
// interactivity with Slash Commands"); a `view_submission` lists `response_urls` of `{block_id, action_id,
// channel_id, response_url}` when the view has a conversation picker with `response_url_enabled` ("view_submission
// payload"). The replies go through each delivery's response_url, which needs no membership.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALLBACK, INPUT } from '../../src/slack/ids.js';
import { OPERATOR, startTestApp, type TestApp } from '../harness/app.js';
import { selectInput, textInput } from '../harness/payloads.js';
import { sandboxAgents, shownText, viewOf } from './support.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('a slash command', () => {
  it.each([
    { where: 'a group DM', channelId: 'G0GROUPDM', channelName: 'mpdm-ada--omar-1' },
    { where: 'a private channel the app is not in', channelId: 'C0NOTINVITED', channelName: 'privategroup' },
  ])('from $where is answered to its person', async ({ channelId, channelName }) => {
    const listed = await t.command('agents', OPERATOR, { channelId, channelName });
    expect(shownText(await t.respondedTo(listed.responseUrlId))).toMatch(/agents?/i);

    const name = `Desk in ${channelName}`;
    const created = await t.command(`agents create "${name}" en-US`, OPERATOR, { channelId, channelName });
    expect(shownText(await t.respondedTo(created.responseUrlId))).toContain(name);
    expect((await sandboxAgents(t)).map((agent) => agent.name)).toContain(name);
  });
});

describe('a form submission that carries response_urls', () => {
  it('is handled as any other: the agent is created', async () => {
    const sent = await t.command('agents create', OPERATOR);
    const opened = await t.slack.waitFor('views.open', (call) => call.body.trigger_id === sent.triggerId);
    const name = 'Desk from a form with response_urls';

    const answer = await t.submit({
      userId: OPERATOR,
      callbackId: CALLBACK.createAgent,
      privateMetadata: viewOf(opened).private_metadata,
      stateValues: {
        [INPUT.agentName.block]: { [INPUT.agentName.action]: textInput(name) },
        [INPUT.agentLanguage.block]: { [INPUT.agentLanguage.action]: selectInput('en-US') },
        [INPUT.agentLanguageOther.block]: { [INPUT.agentLanguageOther.action]: textInput(null) },
      },
      responseUrls: [
        {
          block_id: 'where',
          action_id: 'channel',
          channel_id: 'C0SOMEWHERE',
          response_url: t.slack.respondUrl('form-picked-channel'),
        },
      ],
    });

    expect(answer.status).toBe(200);
    await t.settled();
    expect((await sandboxAgents(t)).map((agent) => agent.name)).toContain(name);
  });
});
