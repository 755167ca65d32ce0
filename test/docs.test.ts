// The README and the manual in docs/ stay true to the checkout: every link leads to a file (and a heading) that
// exists, every guarantee names a test file that exists, the README stays a front page, and every command of the
// grammar is in the README's command summary and in the user's guide, and the operator's reference lists every
// variable with the values it accepts and every metric /metrics serves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { VARIABLES } from '../src/config.js';
import { COMMANDS, type CommandSpec } from '../src/slack/command.js';
import { startTestApp, type TestApp } from './harness/app.js';

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

/** A command's usage line, as `/voice help` prints it. */
function usageOf(spec: CommandSpec): string {
  return ['/voice', ...spec.words, spec.args].filter(Boolean).join(' ');
}

/**
 * The forms a command's arguments offer, where they are alternatives set apart by a spaced bar (`NUMBER | REGION
 * COUNT [DIGITS]`, `[NUMBER AGENT | FILTER to AGENT]`): a single change and its bulk form.
 */
function formsOf(spec: CommandSpec): string[] {
  const args = /^\[(.*)\]$/.exec(spec.args)?.[1] ?? spec.args;
  const forms = args.split(' | ');
  return forms.length > 1 ? forms.map((form) => ['/voice', ...spec.words, form].join(' ')) : [];
}

/** The text of the `## heading` section of a page, up to the next heading of its level. */
function sectionOf(page: string, heading: string): string {
  const text = readFileSync(page, 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) return '';
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/**
 * The `/voice …` code spans in the first column of a text's tables: the commands it lists, one a row, rather than
 * those a row's description mentions in passing.
 */
function listedCommands(text: string): string[] {
  const firstCells = text
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => line.slice(1, line.indexOf(' | ')));
  return firstCells.flatMap((cell) => [...cell.matchAll(/`(\/voice[^`]*)`/g)].map((match) => match[1] ?? ''));
}

/** Without square brackets: `/voice map [NUMBER AGENT]` names the form `/voice map NUMBER AGENT`. */
const unbracketed = (text: string) => text.replace(/[[\]]/g, '');

/** The command a span names, as the grammar picks it: the longest words that match. */
function commandNamedBy(span: string): CommandSpec | undefined {
  const words = span
    .split(/\s+/)
    .slice(1)
    .map((word) => word.toLowerCase());
  return [...COMMANDS]
    .sort((a, b) => b.words.length - a.words.length)
    .find((spec) => spec.words.every((word, index) => words[index] === word));
}

/** What a table of commands leaves out: commands no row names, forms no row gives, and the unmap answer. */
function missingFrom(text: string): string[] {
  const spans = listedCommands(text);
  const named = new Set(spans.map(commandNamedBy));
  return [
    ...COMMANDS.filter((spec) => !named.has(spec)).map(usageOf),
    ...COMMANDS.flatMap(formsOf).filter(
      (form) => !spans.some((span) => unbracketed(span).startsWith(unbracketed(form))),
    ),
    ...(spans.some((span) => span.startsWith('/voice unmap')) ? [] : ['/voice unmap']),
  ];
}

describe('the commands in the documentation', () => {
  it('has a grammar whose bulk forms the checks below can tell apart', () => {
    expect(COMMANDS.flatMap(formsOf)).toEqual(
      expect.arrayContaining([
        '/voice numbers buy REGION COUNT [DIGITS]',
        '/voice numbers release FILTER',
        '/voice map FILTER to AGENT',
      ]),
    );
  });

  it("lists every command and bulk form, and the unmap answer, in the README's command summary", () => {
    const summary = sectionOf('README.md', 'Commands');
    expect(summary).not.toBe('');
    expect(missingFrom(summary)).toEqual([]);
  });

  it("gives every command's usage line, as help prints it, in the user's guide", () => {
    const lines = sectionOf('docs/user-guide.md', 'Commands at a glance').split('\n');
    expect(COMMANDS.map(usageOf).filter((usage) => !lines.includes(usage))).toEqual([]);
  });

  it("describes every command and bulk form, and the unmap answer, in the user's guide", () => {
    expect(missingFrom(sectionOf('docs/user-guide.md', 'Every command'))).toEqual([]);
  });
});

/** The rows of the table whose first column is headed `header`, by the `code` names their first cell gives. */
function tableOf(page: string, header: string): Map<string, string> {
  const lines = readFileSync(page, 'utf8').split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${header} |`));
  const end = lines.findIndex((line, index) => index > start && !line.startsWith('|'));
  return new Map(
    lines.slice(start + 2, end).flatMap((row) => {
      const first = row.slice(1, row.indexOf(' | '));
      return [...first.matchAll(/`([^`{]+)[^`]*`/g)].map((match) => [match[1] ?? '', row] as const);
    }),
  );
}

const isSchema = (part: unknown): part is z.core.$ZodType =>
  typeof part === 'object' && part !== null && '_zod' in part;

/** The values a schema accepts when they are a fixed list: every enum in it, however wrapped (a list, a default). */
function fixedValues(schema: z.core.$ZodType): string[] {
  const { def } = schema._zod;
  if (def.type === 'enum') return Object.values((def as z.core.$ZodEnumDef).entries).map(String);
  return Object.values(def).flat().filter(isSchema).flatMap(fixedValues);
}

/** The comment lines right above `NAME=` in .env.example. */
function exampleComment(name: string): string {
  const lines = readFileSync('.env.example', 'utf8').split('\n');
  const at = lines.indexOf(lines.find((line) => line.startsWith(`${name}=`)) ?? '');
  const above = lines.slice(0, Math.max(at, 0)).reverse();
  const comment = above.slice(
    0,
    above.findIndex((line) => !line.startsWith('#')),
  );
  return comment.reverse().join('\n');
}

describe("the operator's reference", () => {
  const variables = tableOf('docs/operating.md', 'variable');
  const withValues = Object.entries(VARIABLES)
    .map(([name, schema]) => [name, fixedValues(schema)] as const)
    .filter(([, values]) => values.length > 0);

  it('has a row for every variable the configuration reads', () => {
    expect(Object.keys(VARIABLES).filter((name) => !variables.has(name))).toEqual([]);
  });

  it('lists every value a variable of fixed values accepts, in its row and in .env.example', () => {
    expect(withValues.map(([name]) => name)).toEqual(expect.arrayContaining(['LOG_LEVEL', 'VOICE_REQUIRE_APPROVAL']));
    const unlisted = withValues.flatMap(([name, values]) =>
      values.filter((value) => !variables.get(name)?.includes(`\`${value}\``)).map((value) => `${name}: ${value}`),
    );
    const unexampled = withValues.flatMap(([name, values]) =>
      values.filter((value) => !exampleComment(name).includes(value)).map((value) => `${name}: ${value}`),
    );
    expect({ unlisted, unexampled }).toEqual({ unlisted: [], unexampled: [] });
  });

  describe('its metrics table', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp();
    });
    afterAll(async () => {
      await t?.close();
    });

    it('names every metric /metrics serves, and only those', async () => {
      const served = await (await request(`${t.app.probesUrl}/metrics`)).body.text();
      const names = [...served.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1] ?? '');
      // A name ending in `*` stands for a family: prom-client's process and Node.js metrics.
      const documented = [...tableOf('docs/operating.md', 'metric').keys()];
      const covers = (doc: string, name: string) =>
        doc.endsWith('*') ? name.startsWith(doc.slice(0, -1)) : doc === name;
      expect(names.length).toBeGreaterThan(20);
      expect({
        undocumented: names.filter((name) => !documented.some((doc) => covers(doc, name))),
        notServed: documented.filter((doc) => !names.some((name) => covers(doc, name))),
      }).toEqual({ undocumented: [], notServed: [] });
    });
  });
});
