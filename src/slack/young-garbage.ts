// Node copies each chunk of a request body into a buffer of its own, outside V8's heap, and V8 weighs such buffers
// toward a collection only every 64 MiB or so; a flood of forged bodies, each read and dropped, so grows the process by
// about 50 MiB even in a bare http server. Collecting the young generation after every MiB read frees most at
// once, for about a millisecond each (docs/decisions.md, "Unproven bodies are bounded").
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Bytes of bodies read between two collections. */
const READ_BETWEEN_COLLECTIONS = 1024 * 1024;

// The flag takes effect for contexts made while it is set: this one context's `gc` serves, and it is unset at once, so
// that no other context (the app's own global included) gains one.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
setFlagsFromString('--no-expose-gc');

/** Counts bytes read, and collects the young generation each time another MiB has been. */
export function youngCollector(): (bytes: number) => void {
  let read = 0;
  return (bytes) => {
    read += bytes;
    if (read < READ_BETWEEN_COLLECTIONS) return;
    read = 0;
    gc({ type: 'minor' });
  };
}
