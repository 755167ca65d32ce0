// The provider's public surface: the client, its errors and the wire types.
export { type BoughtNumber, mayHaveTakenEffect, ProviderClient, type ProviderClientOptions } from './client.js';
export { adviceFor, ProviderError, type ProviderErrorKind } from './errors.js';
export type { RetryPolicy } from './retry.js';
export {
  type Agent,
  type AvailableNumber,
  type AvailableNumberPage,
  type CreateAgentRequest,
  type CreatedAgent,
  type DeletedAgent,
  EXPECTED_STATUS,
  type PurchasedNumber,
  type ReleasedNumber,
  type Routing,
  type SearchNumbersQuery,
} from './schemas.js';
