// `npm run screenshot`: the README's picture of the playground, taken in Debian's Chromium: an operator has searched
// for US numbers, pressed Buy where the number was listed and confirmed there; the bought reply took the
// confirmation's place, with the search shown again beneath it. Written to docs/playground.png.
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../config.js';
import { createLogger } from '../log.js';
import { findChromium, launchChromium } from './browser.js';
import { OPERATOR } from './people.js';
import { startPlayground } from './start.js';

const OUTPUT = fileURLToPath(new URL('../../docs/playground.png', import.meta.url));

const chromiumPath = findChromium();
if (!chromiumPath) {
  console.error('No Chromium at /usr/bin/chromium: apt-get install chromium, then run this again.');
  process.exit(1);
}

const dir = await mkdtemp(join(tmpdir(), 'voice-ops-screenshot-'));
const config = parseConfig({ PORT: '0', DATABASE_PATH: join(dir, 'voice-ops.db'), RECONCILE_INTERVAL_S: '0' });
const playground = await startPlayground(config, { logger: createLogger('warn') });
const browser = await launchChromium(chromiumPath, { viewport: { width: 1280, height: 720 } });
try {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(`${playground.url}?user=${OPERATOR.id}`);
  const composer = page.getByRole('textbox', { name: 'Message' });
  const type = async (text: string) => {
    await composer.fill(text);
    await composer.press('Enter');
  };
  await type('/voice numbers search US');
  await page.getByRole('button', { name: 'Buy', exact: true }).first().click();
  const prompt = page.getByRole('listitem').filter({ hasText: 'This spends money' });
  await prompt.getByRole('button', { name: 'Buy', exact: true }).click();
  const bought = page.getByRole('listitem').filter({ hasText: 'Bought' });
  await bought.waitFor();
  // The bought reply at the top of the channel, below the channel's heading, with the search beneath it.
  await bought.evaluate((element) => {
    element.scrollIntoView({ block: 'start' });
    let scroller = element.parentElement;
    while (scroller && scroller.scrollHeight <= scroller.clientHeight) scroller = scroller.parentElement;
    scroller?.scrollBy(0, -12);
  });
  await mkdir(join(OUTPUT, '..'), { recursive: true });
  await page.screenshot({ path: OUTPUT });
  console.log(`Wrote ${OUTPUT} (${Math.round((await stat(OUTPUT)).size / 1024)} KB).`);
} finally {
  await browser.close();
  await playground.stop();
  await rm(dir, { recursive: true, force: true });
}
