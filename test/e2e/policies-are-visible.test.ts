// Help and the Home tab state the guardrails in force, with how much of each buy limit is used, so that a person
// meets the rules before being refused by them; with none configured, they say nothing more.
import { afterEach, expect, it } from 'vitest';
import { OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, type TestAppOptions } from '../harness/app.js';
import { buyThroughApp, shownText, voiceNumber } from './support.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function start(options: TestAppOptions = {}): Promise<TestApp> {
  t = await startTestApp(options);
  return t;
}

async function helpText(app: TestApp): Promise<string> {
  const sent = await app.command('help', OPERATOR);
  return shownText(await app.respondedTo(sent.responseUrlId));
}

async function homeText(app: TestApp): Promise<string> {
  const since = app.slack.mark();
  await app.homeOpened(OPERATOR);
  const published = await app.slack.waitFor('views.publish', (call) => call.body.user_id === OPERATOR, { since });
  return shownText(published);
}

it('shows the rules in force and the buying used so far, in help and on the Home tab', async () => {
  const app = await start({
    env: {
      VOICE_BUY_LIMIT: '5/day',
      VOICE_BUY_LIMIT_PER_USER: '2/week',
      VOICE_REQUIRE_APPROVAL: 'number.release',
      VOICE_CHANGE_CHANNELS: OPS_CHANNEL,
      VOICE_TYPED_RELEASE: 'true',
    },
  });
  await buyThroughApp(app, OPERATOR, await voiceNumber(app));

  for (const text of [await helpText(app), await homeText(app)]) {
    expect(text).toContain('Buying: 1 of 5 today (`VOICE_BUY_LIMIT`)');
    expect(text).toContain('Your buying: 1 of 2 this week (`VOICE_BUY_LIMIT_PER_USER`)');
    expect(text).toContain('Releasing needs a second approver, asked in <#CNOTIFY> (`VOICE_REQUIRE_APPROVAL`)');
    expect(text).toContain(`Changes only in <#${OPS_CHANNEL}> (\`VOICE_CHANGE_CHANNELS\`)`);
    expect(text).toContain('asks for its last four digits (`VOICE_TYPED_RELEASE`)');
    expect(text).toContain(
      'Admins change these rules with `/voice settings`; those named by a variable, whoever runs Voice Ops.',
    );
  }
});

it('says nothing more when no guardrail is set', async () => {
  const app = await start();
  for (const text of [await helpText(app), await homeText(app)]) {
    for (const rule of [':moneybag:', ':raised_hand:', ':round_pushpin:', ':keyboard:', 'Admins change these rules']) {
      expect(text).not.toContain(rule);
    }
  }
});
