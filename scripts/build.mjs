// Compiles src/ into dist/ with tsc (type errors stop it). `--if-stale` (or `buildIfStale`) builds only when dist/ is
// missing or older than a source file, which costs a few milliseconds when nothing changed, so that `npm start` never
// runs stale code.
// The build goes to a fresh directory that replaces dist/ only once tsc has succeeded: a failed build leaves dist/ as
// it was (and still stale, so the next start tries again rather than run it). Files tsc does not emit that the app reads
// at run time (the playground's page) are copied beside the compiled code, so that dist/ runs on its own.
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
/** Written last by a successful build, dated when the build began: sources newer than it are not in dist/. */
const STAMP = join(DIST, '.built');
const SOURCES = ['src', 'tsconfig.json', 'tsconfig.build.json'];
/** Read at run time, relative to the compiled module that serves them; their tsconfig.json only type-checks them. */
const ASSETS = [{ from: 'src/playground/page', to: 'playground/page', skip: /tsconfig\.json$/ }];

function newestSource() {
  let newest = 0;
  for (const source of SOURCES) {
    const path = join(ROOT, source);
    const files = statSync(path).isDirectory()
      ? readdirSync(path, { recursive: true }).map((file) => join(path, String(file)))
      : [path];
    for (const file of files) newest = Math.max(newest, statSync(file).mtimeMs);
  }
  return newest;
}

function isFresh() {
  return existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestSource();
}

function build() {
  const began = new Date();
  const out = join(ROOT, `.dist-${process.pid}`);
  process.stderr.write('Compiling src/ into dist/ (tsc)…\n');
  // tsc reports on stdout; stderr keeps the stdout of `npm run audit` clean.
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', out],
    {
      cwd: ROOT,
      stdio: ['ignore', 2, 2],
    },
  );
  if (tsc.status !== 0) {
    rmSync(out, { recursive: true, force: true });
    process.stderr.write('The build failed: dist/ was left as it was.\n');
    process.exit(1);
  }
  for (const { from, to, skip } of ASSETS) {
    cpSync(join(ROOT, from), join(out, to), { recursive: true, filter: (path) => !skip.test(path) });
  }
  writeFileSync(join(out, '.built'), '');
  utimesSync(join(out, '.built'), began, began);
  rmSync(DIST, { recursive: true, force: true });
  try {
    renameSync(out, DIST);
  } catch (error) {
    // Another build finished first and its dist/ is in place: keep it.
    rmSync(out, { recursive: true, force: true });
    if (!existsSync(STAMP)) throw error;
  }
}

/** Builds dist/ unless it is newer than every source. */
export function buildIfStale() {
  if (!isFresh()) build();
}

/** Whether node was asked to run this file (`npm run build`, `--if-stale` before a tool), not start.mjs importing it. */
function runAsScript() {
  try {
    return realpathSync(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (runAsScript()) {
  if (process.argv.includes('--if-stale')) buildIfStale();
  else build();
}
