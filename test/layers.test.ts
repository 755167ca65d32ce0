// The layers above the operations reach them through one door, src/ops/api.ts: the Slack layer, the reconciler, the
// playground and the composition root import nothing else of src/ops. The Slack layer and the playground also leave
// alone what the door offers only for wiring the operations and for the reconciler beside them.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const DOOR = 'src/ops/api.ts';
const ABOVE_OPS = ['src/slack', 'src/reconcile', 'src/playground'];
const BESIDE_MARK = '// Beside the operations';

/** Every module specifier a file imports or re-exports, statically or dynamically. */
const SPECIFIERS = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

async function sourcesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

async function topLevelSources(): Promise<string[]> {
  const entries = await readdir('src', { withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join('src', entry.name));
}

/** The files of src/ops a source file imports, as paths from the repository's root (`src/ops/x.ts`). */
function opsImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const [, specifier = ''] of text.matchAll(SPECIFIERS)) {
    if (!specifier.startsWith('.')) continue;
    const target = relative(process.cwd(), resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
    if (target.startsWith('src/ops/')) found.push(target);
  }
  return found;
}

/** The names the door exports after its "beside the operations" mark: wiring and the reconciler's machinery. */
async function besideNames(): Promise<string[]> {
  const door = await readFile(DOOR, 'utf8');
  const at = door.indexOf(BESIDE_MARK);
  expect(at, `${DOOR} marks where its section for wiring and the reconciler begins`).toBeGreaterThan(0);
  const names: string[] = [];
  for (const [, list = ''] of door.slice(at).matchAll(/export(?:\s+type)?\s*\{([^}]*)\}/g)) {
    for (const name of list.split(',')) {
      const plain = name.trim().replace(/^type\s+/, '');
      if (plain) names.push(plain);
    }
  }
  return names;
}

/** The names a file takes from the door. */
function namesFromDoor(file: string, text: string): string[] {
  const names: string[] = [];
  for (const [, list = '', specifier = ''] of text.matchAll(
    /import(?:\s+type)?\s*\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g,
  )) {
    if (relative(process.cwd(), resolve(dirname(file), specifier)).replace(/\.js$/, '.ts') !== DOOR) continue;
    for (const name of list.split(',')) {
      const plain = name
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0];
      if (plain) names.push(plain);
    }
  }
  return names;
}

describe('the door to the operations', () => {
  it('is the only file of src/ops that the Slack layer, the reconciler, the playground and src/*.ts import', async () => {
    const files = [...(await Promise.all(ABOVE_OPS.map(sourcesUnder))).flat(), ...(await topLevelSources())];
    expect(files.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    let throughDoor = 0;
    for (const file of files) {
      for (const target of opsImports(file, await readFile(file, 'utf8'))) {
        if (target === DOOR) throughDoor++;
        else offenders.push(`${file} imports ${target}`);
      }
    }
    expect(offenders).toEqual([]);
    expect(throughDoor).toBeGreaterThan(40);
  });

  it('gives the Slack layer and the playground none of the wiring or the reconciler machinery', async () => {
    const beside = await besideNames();
    expect(beside).toEqual(
      expect.arrayContaining(['OpsDeps', 'atomically', 'record', 'AccessControl', 'operationsOn']),
    );
    const files = (await Promise.all(['src/slack', 'src/playground'].map(sourcesUnder))).flat();
    const offenders: string[] = [];
    for (const file of files) {
      for (const name of namesFromDoor(file, await readFile(file, 'utf8'))) {
        if (beside.includes(name)) offenders.push(`${file} takes ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

/** Every source file's imports of other source files, type-only ones included: a circle of types is a circle too. */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const file of await sourcesUnder('src')) {
    const text = await readFile(file, 'utf8');
    const targets: string[] = [];
    for (const [, specifier = ''] of text.matchAll(SPECIFIERS)) {
      if (!specifier.startsWith('.')) continue;
      targets.push(relative(process.cwd(), resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'));
    }
    graph.set(relative(process.cwd(), file), targets);
  }
  return graph;
}

/** The first circle found, as the files around it, or none. */
function circleIn(graph: Map<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string): string[] | undefined => {
    const at = path.indexOf(file);
    if (at >= 0) return [...path.slice(at), file];
    if (done.has(file) || !graph.has(file)) return undefined;
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      const circle = visit(target);
      if (circle) return circle;
    }
    path.pop();
    done.add(file);
    return undefined;
  };
  for (const file of graph.keys()) {
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

describe('the imports of src/', () => {
  it('run in no circle, type-only imports included', async () => {
    const graph = await importGraph();
    expect(graph.size).toBeGreaterThan(150);
    expect(circleIn(graph)).toBeUndefined();
  });

  it('would show a circle where there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(circleIn(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });
});
