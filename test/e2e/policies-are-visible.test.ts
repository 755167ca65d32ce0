// Help and the Home tab state the guardrails in force, with how much of each buy limit is used, so that a person
// meets the rules before being refused by them; with none configured, they say nothing more. Each test runs with the
// rules given by the environment, each line naming its variable, and again with the same rules set in Slack.
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATOR, OPS_CHANNEL, startTestApp, type TestApp, type TestAppOptions } from '../harness/app.js';
import { buyThroughApp, ruleWords, SETTINGS_SOURCES, shownText, voiceNumber } from './support.js';

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

describe.each(SETTINGS_SOURCES)('rules from %s', (settingsFrom) => {
  const words = ruleWords(settingsFrom);

  it('shows the rules in force and the buying used so far, in help and on the Home tab', async () => {
    const app = await start({
      settingsFrom,
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
      // Each rule's whole line: in the environment it ends naming its variable; set in Slack, it names none.
      const lines = text.split('\n');
      const tag = words.lineTag;
      expect(lines).toContain(`:moneybag: Buying: 1 of 5 today${tag('VOICE_BUY_LIMIT')}`);
      expect(lines).toContain(`:moneybag: Your buying: 1 of 2 this week${tag('VOICE_BUY_LIMIT_PER_USER')}`);
      expect(lines).toContain(
        `:raised_hand: Releasing needs a second approver, asked in <#CNOTIFY>${tag('VOICE_REQUIRE_APPROVAL')}`,
      );
      expect(lines).toContain(`:round_pushpin: Changes only in <#${OPS_CHANNEL}>${tag('VOICE_CHANGE_CHANNELS')}`);
      expect(lines).toContain(
        `:keyboard: Releasing a routed number asks for its last four digits${tag('VOICE_TYPED_RELEASE')}`,
      );
      expect(lines).toContain(words.rulesFooter);
    }
  });

  it('says nothing more when no guardrail is set', async () => {
    const app = await start({ settingsFrom });
    for (const text of [await helpText(app), await homeText(app)]) {
      // The Home tab's Settings list every setting, none set included; the rules in force are said in none.
      for (const rule of [
        ':moneybag:',
        ':raised_hand:',
        ':round_pushpin:',
        ':keyboard:',
        'Admins change these rules',
      ]) {
        expect(text).not.toContain(rule);
      }
    }
  });
});
