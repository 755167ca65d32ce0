/** Work under way, labelled, so that a graceful stop can let it finish, or say what still ran. */
export class InFlight {
  readonly #running = new Map<Promise<unknown>, () => string>();
  readonly #ids = new Set<string>();
  #closing = false;

  /** A stop has begun: long work (a batch) starts nothing new, and ends at its next step. */
  close(): void {
    this.#closing = true;
  }

  get closing(): boolean {
    return this.#closing;
  }

  /** `describe` is called only when someone asks; an `id` (a correlation id, say) lets others ask about it. */
  run<T>(describe: () => string, work: () => Promise<T>, id?: string): Promise<T> {
    const promise = work();
    this.#running.set(promise, describe);
    if (id !== undefined) this.#ids.add(id);
    const forget = () => {
      this.#running.delete(promise);
      if (id !== undefined) this.#ids.delete(id);
    };
    promise.then(forget, forget);
    return promise;
  }

  isRunning(id: string): boolean {
    return this.#ids.has(id);
  }

  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.keys()]);
  }

  /** The labels of what is still running, oldest first. */
  labels(): string[] {
    return [...this.#running.values()].map((describe) => describe());
  }
}
