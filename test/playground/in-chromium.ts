// What the playground's browser tests share: whether there is a Chromium to drive (in CI, a missing one fails
// them; elsewhere they are skipped with a message), and a person's ways of using the page, by the names a screen
// reader gives its controls.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Browser, findChromium, launchChromium } from '../../src/playground/browser.js';
import { startTestPlayground, type TestPlayground } from './support.js';

export const chromiumPath = findChromium();
const inCi = Boolean(process.env.CI);
/** Skip when there is no Chromium, except in CI, where the set-up then fails saying so. */
export const noBrowser = !chromiumPath && !inCi;
if (noBrowser) {
  console.warn('Browser tests skipped: no Chromium at /usr/bin/chromium (apt-get install chromium). In CI they fail.');
}

export function requireChromium(): string {
  if (!chromiumPath) throw new Error('CI is set and no Chromium was found: apt-get install chromium');
  return chromiumPath;
}

/**
 * Waits for what the page shows to settle: a reply comes after the app has talked to the provider. The limit only
 * ends a wait for a page that never gets there, so it allows for a machine busy with other work.
 */
export const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000 });

/** A person on the playground's page. */
export function person(page: Page, url: string) {
  return {
    /** Opens the page as one of the playground's people. */
    async openAs(userId: string): Promise<void> {
      await page.goto(`${url}?user=${userId}`);
      await eventually(() => page.getByLabel('User').inputValue()).toBe(userId);
    },

    async type(text: string): Promise<void> {
      const composer = page.getByRole('textbox', { name: 'Message' });
      await composer.fill(text);
      await composer.press('Enter');
    },

    /** The message in the open conversation that contains `text`. */
    message: (text: string | RegExp): Locator => page.getByRole('listitem').filter({ hasText: text }).last(),

    /** Picks an option: in a static select by its text, in a type-ahead by typing and choosing what the app offers. */
    async choose(form: Locator, label: string, typed: string, option: string | RegExp): Promise<void> {
      const field = form.getByRole('combobox', { name: label, exact: true });
      if ((await field.evaluate((element) => element.tagName)) === 'SELECT') {
        const value = await field.locator('option').filter({ hasText: option }).first().getAttribute('value');
        await field.selectOption(value ?? '');
        return;
      }
      await field.fill(typed);
      await form.getByRole('option', { name: option }).first().click();
    },
  };
}

/** A fresh playground and one Chromium page on it for the tests of a describe block, closed after them. */
export function usePlaygroundInChromium(): { readonly page: Page; readonly t: TestPlayground } {
  const bed = {} as { page: Page; t: TestPlayground; browser: Browser };
  beforeAll(async () => {
    const chromiumPath = requireChromium();
    bed.t = await startTestPlayground();
    bed.browser = await launchChromium(chromiumPath);
    bed.page = await bed.browser.context.newPage();
    bed.page.setDefaultTimeout(30_000);
  }, 60_000);
  afterAll(async () => {
    await bed.page?.close();
    await bed.browser?.close();
    await bed.t?.close();
  });
  return bed;
}
