// Where a process's CPU went, from a V8 CPU profile: each sample is charged to the first frame, walking up from the
// sampled one, of a part this split names. The HTTP and Postgres clients (undici, pg) are parts of their own, wherever
// they are called from; any other library's work (SQLite, zod) is charged to whoever called it: SQLite under the
// delivery key's recording is the delivery key's. Idle time is left out.
import { z } from 'zod';

const callFrame = z.object({ functionName: z.string(), url: z.string() });
const profileNode = z.object({ id: z.number(), callFrame, children: z.array(z.number()).optional() });
export const cpuProfile = z.object({
  nodes: z.array(profileNode),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});
export type CpuProfile = z.infer<typeof cpuProfile>;

/** The parts of a command's CPU, in the order they are printed. */
export const PARTS = [
  'ack path: HTTP receiver and signature',
  'Bolt',
  'delivery key',
  "the answer's post",
  'the answer: ops and views',
  'store (other than the delivery key)',
  'Postgres client (pg), reading answers',
  'HTTP client (undici), sending and reading',
  'metrics',
  'logging',
  'node: HTTP, sockets, timers',
  'garbage collection',
  'rest',
] as const;
export type Part = (typeof PARTS)[number];

/**
 * The store's SQL seam is what every repository calls: its frames name no part, and the walk goes on to the
 * repository that called it (the delivery key's, or another).
 */
const SEAM = /\/src\/store\/(sql|sqlite-sql|postgres-sql|db|columns)\.ts$/;

/** The part a frame names, if it names one: the first rule whose pattern its script's URL matches. */
const RULES: readonly [RegExp, Part][] = [
  [/\/src\/store\/delivery-keys\.ts$|\/src\/slack\/deliveries\.ts$/, 'delivery key'],
  [/\/src\/slack\/(respond|private-answer)\.ts$/, "the answer's post"],
  [/\/src\/metrics\.ts$|\/node_modules\/prom-client\//, 'metrics'],
  [/\/src\/(log|log-destination|log-lines)\.ts$|\/src\/slack\/bolt-logger\.ts$|\/node_modules\/pino/, 'logging'],
  [
    /\/src\/(http-front|listen)\.ts$|\/src\/slack\/(receiver|signed-request)\.ts$/,
    'ack path: HTTP receiver and signature',
  ],
  [/\/src\/store\//, 'store (other than the delivery key)'],
  [/\/src\/(ops|slack|settings|counts)/, 'the answer: ops and views'],
  [/\/node_modules\/@slack\/bolt\//, 'Bolt'],
  // Called back from sockets, with no frame of the app above them: the drivers' own reading and writing.
  [/\/node_modules\/(pg|pg-protocol|pg-pool)\//, 'Postgres client (pg), reading answers'],
  [/\/node_modules\/undici\/|node:internal\/deps\/undici/, 'HTTP client (undici), sending and reading'],
];

/** The source a compiled module of the app's dist/ (what the bench runs) was built from: the rules name sources. */
const APP_DIST = new URL('../dist/', import.meta.url).href;
const APP_SRC = new URL('../src/', import.meta.url).href;
const sourceOf = (url: string): string =>
  url.startsWith(APP_DIST) && url.endsWith('.js') ? `${APP_SRC}${url.slice(APP_DIST.length, -'.js'.length)}.ts` : url;

function partOfFrame(url: string, functionName: string): Part | undefined {
  if (functionName === '(garbage collector)') return 'garbage collection';
  return RULES.find(([pattern]) => pattern.test(url))?.[1];
}

const IDLE = new Set(['(idle)', '(program)']);

/** The `count` frames that spent the most CPU themselves, ms, with their part: where to look inside a part. */
export function topFrames(profile: CpuProfile, count: number): { frame: string; part: string; ms: number }[] {
  const split = new Map<number, number>();
  profile.samples.forEach((id, index) => {
    split.set(id, (split.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  const parts = partsById(profile);
  const byFrame = new Map<string, { part: string; ms: number }>();
  for (const node of profile.nodes) {
    const ms = split.get(node.id) ?? 0;
    const part = parts(node.id);
    if (!ms || part === 'idle') continue;
    const { functionName, url } = node.callFrame;
    const frame = `${functionName || '(anonymous)'} ${sourceOf(url).replace(/^.*\/(node_modules|src)\//, '$1/')}`;
    const seen = byFrame.get(frame) ?? { part, ms: 0 };
    byFrame.set(frame, { part, ms: seen.ms + ms });
  }
  return [...byFrame]
    .map(([frame, { part, ms }]) => ({ frame, part, ms }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

/** Milliseconds of CPU per part, idle left out. */
export function splitProfile(profile: CpuProfile): Map<Part, number> {
  const resolve = partsById(profile);
  const split = new Map<Part, number>(PARTS.map((part) => [part, 0]));
  profile.samples.forEach((id, index) => {
    const part = resolve(id);
    if (part !== 'idle') split.set(part, (split.get(part) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return split;
}

/** The part each node of the profile is charged to (see the top of this file). */
function partsById(profile: CpuProfile): (id: number) => Part | 'idle' {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const partOf = new Map<number, Part | 'idle'>();
  const resolve = (id: number): Part | 'idle' => {
    const known = partOf.get(id);
    if (known) return known;
    const node = byId.get(id);
    if (!node) return 'rest';
    const { functionName } = node.callFrame;
    const url = sourceOf(node.callFrame.url);
    const up = parent.get(id);
    const part: Part | 'idle' = IDLE.has(functionName)
      ? 'idle'
      : ((SEAM.test(url) ? undefined : partOfFrame(url, functionName)) ??
        (up === undefined ? (url.startsWith('node:') ? 'node: HTTP, sockets, timers' : 'rest') : resolve(up)));
    // A frame of node's own under no part of the app is node's: the HTTP parser, sockets, timers.
    const named = part === 'rest' && url.startsWith('node:') ? 'node: HTTP, sockets, timers' : part;
    partOf.set(id, named);
    return named;
  };
  return resolve;
}
