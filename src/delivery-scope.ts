// What one Slack delivery set going, followed through its async calls: whether it sent a change to the provider. A
// failure that stops the delivery half-way (its database, say) can then tell the person the truth: nothing was
// changed, or a change did reach the provider and is checked with it. The provider client's requests are noted from
// the composition root (server.ts); the Slack layer opens a scope around each delivery.
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  changeSent: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

export interface Delivery {
  run<T>(work: () => Promise<T>): Promise<T>;
  /** Whether a request that may change the provider's state was sent while `run`'s work ran. */
  readonly changeSent: boolean;
}

export function newDelivery(): Delivery {
  const scope: Scope = { changeSent: false };
  return {
    run: (work) => scopes.run(scope, work),
    get changeSent() {
      return scope.changeSent;
    },
  };
}

/** A request that may change the provider's state was sent on behalf of the delivery under way, if any. */
export function noteChangeSent(): void {
  const scope = scopes.getStore();
  if (scope) scope.changeSent = true;
}
