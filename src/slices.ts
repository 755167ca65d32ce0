// Work over a whole account list (10,000 numbers) a slice at a time, with a turn of the event loop between slices, so
// that an acknowledgement due meanwhile waits for one slice rather than for the whole list.

/** Items visited between turns of the event loop: well under a millisecond of simple work each. */
const SLICE = 2_000;

/** Resolves after the event loop has run whatever became due (I/O included). */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How long a walk over a long table holds the event loop before letting it turn: what an ack due meanwhile waits. */
export const SLICE_MS = 4;

/** Awaited after each step, lets the event loop turn once the steps since the last turn have run SLICE_MS. */
export function turnsOnTime(): () => Promise<void> {
  let began = performance.now();
  return async () => {
    if (performance.now() - began < SLICE_MS) return;
    await nextTurn();
    began = performance.now();
  };
}

/** Calls `visit` on every item in order, yielding to the event loop between slices. */
export async function eachInSlices<T>(items: readonly T[], visit: (item: T) => void): Promise<void> {
  for (let start = 0; start < items.length; start += SLICE) {
    if (start > 0) await nextTurn();
    const end = Math.min(start + SLICE, items.length);
    for (let at = start; at < end; at++) visit(items[at] as T);
  }
}

/** The items `keep` accepts, in order, found a slice at a time. */
export async function filterInSlices<T>(items: readonly T[], keep: (item: T) => boolean): Promise<T[]> {
  const kept: T[] = [];
  await eachInSlices(items, (item) => {
    if (keep(item)) kept.push(item);
  });
  return kept;
}
