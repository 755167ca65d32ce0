// "Did you mean …": a word one slip away from a word the grammar knows (a letter missed, added, changed, or two
// swapped), so that a typo is answered with the command meant rather than read as a filter or a search.
import { editDistance } from '../ops/api.js';

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
