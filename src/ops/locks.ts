/**
 * In-process locks on resources (a number, an agent) so that two concurrent changes to the same one
 * cannot both reach the provider: the second is told to wait instead of queueing behind the first.
 */
export class ResourceLocks {
  readonly #held = new Set<string>();

  /** Runs `work` holding every key, or returns undefined at once when any key is already held. */
  async tryWith<T>(keys: string[], work: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (keys.some((key) => this.#held.has(key))) return undefined;
    for (const key of keys) this.#held.add(key);
    try {
      return { value: await work() };
    } finally {
      for (const key of keys) this.#held.delete(key);
    }
  }
}
