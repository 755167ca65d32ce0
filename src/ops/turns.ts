// At most so many at once: the rest wait their turn, first come first served.

/** Waits for one of `size` turns; the function it resolves with gives the turn back (once, however often called). */
export function takingTurns(size: number): () => Promise<() => void> {
  let active = 0;
  const waiting: (() => void)[] = [];
  const giveBack = () => {
    // The turn passes straight to the next in line, so `active` counts it without a gap.
    const next = waiting.shift();
    if (next) next();
    else active -= 1;
  };
  return async () => {
    if (active >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      giveBack();
    };
  };
}
