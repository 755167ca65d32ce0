// How often a change whose outcome is still unknown is tried again: the provider that did not answer is asked again
// after a wait that doubles each time it still does not, up to a ceiling, rather than at every pass.

/** The longest wait between two tries of one change. */
export const BACK_OFF_CEILING_MS = 5 * 60_000;

export class BackOff {
  readonly #first: number;
  readonly #tries = new Map<string, { failed: number; due: number }>();

  /** `firstMs`: the wait after the first try that found nothing. */
  constructor(firstMs: number) {
    this.#first = firstMs;
  }

  /** Whether the change may be tried at `now`: never tried, or its wait is over. */
  due(id: string, now: Date): boolean {
    const tried = this.#tries.get(id);
    return tried === undefined || tried.due <= now.getTime();
  }

  /** A try that found nothing: the next waits twice as long as the last, up to the ceiling. */
  failed(id: string, now: Date): void {
    const failed = (this.#tries.get(id)?.failed ?? 0) + 1;
    const wait = Math.min(this.#first * 2 ** (failed - 1), BACK_OFF_CEILING_MS);
    this.#tries.set(id, { failed, due: now.getTime() + wait });
  }

  /** The change has its answer, or is no longer open: it is forgotten. */
  settled(id: string): void {
    this.#tries.delete(id);
  }
}
