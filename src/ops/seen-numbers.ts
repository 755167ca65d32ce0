// Capabilities of the numbers recent searches showed, so that a Buy pressed on a result knows them without asking the
// provider again; the purchase then keeps them for good (LearnedFacts).
import type { AvailableNumber } from '../provider/schemas.js';

/** Enough for every result a team pages through in a while; the oldest are let go first. */
const KEPT = 10_000;

export class SeenNumbers {
  readonly #capabilities = new Map<string, string[]>();

  remember(results: AvailableNumber[]): void {
    for (const result of results) {
      this.#capabilities.delete(result.number);
      this.#capabilities.set(result.number, result.capabilities);
    }
    for (const oldest of this.#capabilities.keys()) {
      if (this.#capabilities.size <= KEPT) break;
      this.#capabilities.delete(oldest);
    }
  }

  capabilitiesOf(number: string): string[] | undefined {
    return this.#capabilities.get(number);
  }
}
