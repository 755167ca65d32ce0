// Failures of the provider in the words a person reads: an error turned into a sentence, an answer whose status is
// not the promised one, a resource another change holds.
import { ProviderError } from '../provider/errors.js';
import { type Failure, fail } from './types.js';

/** Turns a provider error into a failure a user can act on; anything else is a bug and is rethrown. */
export function providerFailure(error: unknown): Failure {
  if (!(error instanceof ProviderError)) throw error;
  const reason =
    error.kind === 'not_found'
      ? 'not_found'
      : error.kind === 'conflict'
        ? 'conflict'
        : error.kind === 'validation' && error.status === undefined
          ? 'invalid'
          : 'provider';
  return fail(reason, error.message, {
    providerKind: error.kind,
    field: error.field,
    ...(error.mayStillLand ? { unsettled: true as const } : {}),
  });
}

/** A provider answer whose status is not the one the spec promises for success. */
export function unexpectedStatus(what: string, expected: string, got: string): Failure {
  return fail('provider', `The provider answered ${what} with status "${got}" instead of "${expected}".`, {
    providerKind: 'bad_response',
  });
}
