// Debian's Chromium driven by playwright-core, for the playground's browser tests and its README screenshot
// (`npm run screenshot`). Browser downloads are not needed: the system's Chromium is launched headless with a fresh
// profile that is removed afterwards, and without the background traffic a first run would start.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where Debian (`apt-get install chromium`) and Ubuntu put it. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The system's Chromium, when there is one. */
export function findChromium(): string | undefined {
  return CANDIDATES.find((path) => existsSync(path));
}

export interface Browser {
  context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

export async function launchChromium(
  executablePath: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), 'voice-ops-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: options.viewport ?? { width: 1280, height: 800 },
    });
    return {
      context,
      close: async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
