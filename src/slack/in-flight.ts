/** Tracks the deliveries being handled, so that a graceful stop can let them finish. */
export class InFlight {
  readonly #running = new Set<Promise<unknown>>();

  run<T>(work: () => Promise<T>): Promise<T> {
    const promise = work();
    this.#running.add(promise);
    const forget = () => this.#running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }
}
