// The README and the manual in docs/ stay true to the checkout: every link leads to a file (and a heading) that
// exists, every guarantee names a test file that exists, and the README stays a front page.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const PAGES = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const README_MAX_LINES = 160;

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(page: string): Set<string> {
  const headings = readFileSync(page, 'utf8').match(/^#{1,6} .+$/gm) ?? [];
  return new Set(headings.map((heading) => anchorOf(heading.replace(/^#+ /, ''))));
}

describe('the documentation', () => {
  it.each(PAGES)('%s links only to files and headings that exist', (page) => {
    const text = readFileSync(page, 'utf8');
    const broken: string[] = [];
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?|mailto):/.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? page : join(dirname(page), path);
      if (!existsSync(file)) broken.push(target);
      else if (anchor !== undefined && file.endsWith('.md') && !anchorsIn(file).has(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });

  it('names, for every guarantee, test files that exist', () => {
    const rows = readFileSync('docs/guarantees.md', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| guarantee'));
    expect(rows.length).toBeGreaterThan(50);
    const missing: string[] = [];
    for (const row of rows) {
      const proof = row.slice(row.lastIndexOf('| ', row.length - 2));
      const tests = [...proof.matchAll(/`(test\/[^`]+)`/g)].map((match) => match[1] ?? '');
      if (tests.length === 0) missing.push(`no test named: ${row.slice(0, 80)}`);
      for (const test of tests) if (!existsSync(test)) missing.push(test);
    }
    expect(missing).toEqual([]);
  });

  it(`keeps the README a front page of at most ${README_MAX_LINES} lines, opening with what it is and a picture`, () => {
    const lines = readFileSync('README.md', 'utf8').split('\n');
    expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
    expect(lines.slice(0, 12).some((line) => line.startsWith('![') && line.includes('docs/playground.png'))).toBe(true);
  });
});
