// The numbers recent searches showed, so that a Buy pressed on one knows it is for sale, and its capabilities,
// without asking the provider again.
import type { AvailableNumber } from '../provider/schemas.js';

/** Enough for every result a team pages through in a while; the oldest are let go first. */
const KEPT = 10_000;

/** How long a search's word that a number is for sale is taken for the provider's: a Buy pressed on its result. */
export const OFFERED_FOR_MS = 60_000;

export class SeenNumbers {
  readonly #seen = new Map<string, { capabilities: string[]; at: number }>();

  /** `at`: when the search answered, by the app's clock (ms). */
  remember(results: AvailableNumber[], at: number): void {
    for (const result of results) {
      this.#seen.delete(result.number);
      this.#seen.set(result.number, { capabilities: result.capabilities, at });
    }
    for (const oldest of this.#seen.keys()) {
      if (this.#seen.size <= KEPT) break;
      this.#seen.delete(oldest);
    }
  }

  /** The capabilities of a number a search showed at or after `since` (ms), else undefined. */
  offeredSince(number: string, since: number): string[] | undefined {
    const seen = this.#seen.get(number);
    return seen && seen.at >= since ? seen.capabilities : undefined;
  }
}
