// "Did you mean …": a word one slip away from a word the grammar knows (a letter missed, added, changed, or two
// swapped), so that a typo is answered with the command meant rather than read as a filter or a search.

/** Edits between two words, a swap of two neighbouring letters counting as one (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (rows[0] as number[])[j] = j;
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(a.length, b.length);
}

/** Slips a word of this length may hold and still be read as meant: one, or two in a long word. */
const slipsAllowed = (word: string) => (word.length >= 8 ? 2 : 1);

/** The known word `typed` is a slip away from, if exactly one is closest; never the word itself. */
export function meant(typed: string, known: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  if (known.includes(word)) return undefined;
  const scored = known.map((candidate) => ({ candidate, distance: editDistance(word, candidate) }));
  const best = Math.min(...scored.map((entry) => entry.distance));
  const closest = scored.filter((entry) => entry.distance === best);
  return best <= slipsAllowed(word) && closest.length === 1 ? closest[0]?.candidate : undefined;
}
