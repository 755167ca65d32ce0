/**
 * Work under way, each piece with a label, so that a graceful stop can let it finish, and say what was still running
 * when it could not wait any longer.
 */
export class InFlight {
  readonly #running = new Map<Promise<unknown>, () => string>();

  /** Runs `work`; `describe` is called only when someone asks what is still running. */
  run<T>(describe: () => string, work: () => Promise<T>): Promise<T> {
    const promise = work();
    this.#running.set(promise, describe);
    const forget = () => this.#running.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.keys()]);
  }

  /** The labels of what is still running, oldest first. */
  labels(): string[] {
    return [...this.#running.values()].map((describe) => describe());
  }
}
