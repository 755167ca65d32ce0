// Every emoji the app writes is drawn as the emoji, not as its `:name:`.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withEmoji } from '../../src/playground/mrkdwn.js';

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.name.endsWith('.ts')).map((entry) => join(entry.parentPath, entry.name));
}

describe('emoji', () => {
  it('knows every :name: the app writes', async () => {
    const files = (await Promise.all(['src/slack', 'src/ops', 'src/reconcile'].map(sources))).flat();
    const names = new Set<string>();
    // Not a time of day (`09:00:00+01:00`), whose colons stand between digits, nor a label (`label:team:sales`).
    for (const file of files)
      for (const [name] of (await readFile(file, 'utf8')).matchAll(/(?<![\w]):[a-z0-9_+-]+:(?!\d)/g)) names.add(name);
    expect(names.size).toBeGreaterThan(5);
    expect([...names].filter((name) => withEmoji(name) === name)).toEqual([]);
  });
});
