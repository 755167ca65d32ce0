// Tests that start the app's process run the build (dist/), as production does; it is brought up to date here, once,
// before any test file runs, so that no two of them build at the same time.
import { execFileSync } from 'node:child_process';
import { REPO } from './harness/app-process.js';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: REPO, stdio: 'inherit' });
}
