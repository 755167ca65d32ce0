// `npm start`: dist/ built first when a source is newer than it (see build.mjs), then the app, in this same process:
// a second Node process would add its own start-up, a fifth of a second here, to every start.
import { buildIfStale } from './build.mjs';

buildIfStale();
await import('../dist/main.js');
