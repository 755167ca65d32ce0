// On Node 20 an AsyncLocalStorage in use turns on async hooks for the whole process: every promise then calls a hook
// in JavaScript, which cost a lone command about a tenth of its CPU. The app hands a delivery's scope and a change's
// fence down instead. Here its own process, with a probe loaded before it (fixtures/report-async-hooks.mjs), answers
// commands, buys a number and applies a batch of maps, and the probe must find the hooks off throughout.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shownText } from '../e2e/support.js';
import { BOT_TOKEN, OPERATOR, SIGNING_SECRET } from '../harness/app.js';
import { appEnvironment, spawnApp } from '../harness/app-process.js';
import { RESPONSE_URL } from '../harness/fake-slack.js';
import { slashCommand } from '../harness/payloads.js';
import { postToSlackApp } from '../harness/signing.js';
import {
  askToBuy,
  availableNumber,
  numbersAndAgent,
  outcome,
  planOf,
  pressApply,
  pressConfirm,
  useProcessBed,
} from './process-support.js';
import { until } from './support.js';

const bed = useProcessBed('voice-ops-hooks-', [BOT_TOKEN, SIGNING_SECRET]);
const PROBE = './test/hardening/fixtures/report-async-hooks.mjs';

describe('the app turns no async hooks on', () => {
  it('the probe sees the hooks an AsyncLocalStorage turns on', async () => {
    const control = spawn(
      process.execPath,
      [
        '--import',
        PROBE,
        '-e',
        "new (require('node:async_hooks').AsyncLocalStorage)().run(1, () => setTimeout(() => {}, 200))",
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let written = '';
    control.stderr.on('data', (chunk: Buffer) => {
      written += chunk.toString();
    });
    await new Promise((resolve) => control.once('exit', resolve));
    expect(written).toContain('async hooks: on');
  });

  it('while it answers commands, buys a number and applies a batch of maps', async () => {
    const agentId = await numbersAndAgent(bed.sandbox, 'FR', 2, { name: 'Hooks desk', language: 'fr-FR' });
    const app = spawnApp({
      via: 'node',
      nodeArgs: ['--import', PROBE],
      env: appEnvironment(bed.slack, bed.sandbox, bed.database.env),
    });
    bed.started.push(app);
    const { eventsUrl } = await app.ready;
    const probed = () => app.output().match(/async hooks: \w+( \(asked\))?/g) ?? [];
    await until(
      () => Promise.resolve(probed()),
      (seen) => seen.length > 0,
      'the probe to look',
    );

    const command = (text: string, id: string) =>
      postToSlackApp(
        eventsUrl,
        SIGNING_SECRET,
        slashCommand({ text, userId: OPERATOR, responseUrl: bed.slack.respondUrl(id) }),
      );
    // Help is answered in its acknowledgement; the lists by their response_url.
    expect((await command('help', 'hooks-help')).body).toContain('Voice Ops commands');
    for (const text of ['agents', 'numbers']) {
      expect((await command(text, `hooks-${text}`)).status).toBe(200);
      await bed.slack.waitFor(RESPONSE_URL, (call) => call.responseUrlId === `hooks-${text}`);
    }
    const number = await availableNumber(bed.sandbox, 'GB');
    const bought = await outcome(
      bed.slack,
      await pressConfirm(bed.slack, eventsUrl, await askToBuy(bed.slack, eventsUrl, number)),
    );
    expect(shownText(bought)).toContain(`Bought *${number}*`);
    const applied = await pressApply(bed.slack, eventsUrl, await planOf(bed.slack, eventsUrl, `map FR to ${agentId}`));
    await bed.slack.waitFor(
      RESPONSE_URL,
      (call) => call.responseUrlId === applied && shownText(call).includes('Routed 2 of 2'),
    );
    // Asked once more after the last change, so that it has looked since.
    app.child.kill('SIGUSR2');
    await until(
      () => Promise.resolve(probed()),
      (seen) => seen.some((line) => line.endsWith('(asked)')),
      'its answer',
    );

    expect(probed()).toEqual(['async hooks: off', 'async hooks: off (asked)']);
  });
});
