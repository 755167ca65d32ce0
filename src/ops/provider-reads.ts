// The provider's lists, read at most once per pass of the reconciler (or once per batch item waited on), and only
// when a change needs them to tell what became of it.
import type { Agent } from '../provider/schemas.js';
import type { OpsDeps } from './deps.js';

/** The provider's current state, read at most once per pass and only when an intent needs it. */
export class ProviderReads {
  #numbers?: Promise<Map<string, string>>;
  #agents?: Promise<Agent[]>;

  constructor(private readonly deps: OpsDeps) {}

  numbers(): Promise<Map<string, string>> {
    this.#numbers ??= this.deps.provider
      .listPurchasedNumbers()
      .then((numbers) => new Map(numbers.map((entry) => [entry.number, entry.id])));
    return this.#numbers;
  }

  agents(): Promise<Agent[]> {
    this.#agents ??= this.deps.provider.listAgents();
    return this.#agents;
  }
}
