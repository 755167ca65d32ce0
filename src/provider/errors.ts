import { errorInfoBody, errorListBody, messageBody, problemBody } from './schemas.js';

export type ProviderErrorKind =
  | 'auth'
  | 'not_found'
  | 'conflict'
  | 'validation'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'network'
  | 'bad_response'
  /** Not sent: this process may not change anything at the provider just now (see fence.ts). */
  | 'withheld';

interface ProviderErrorDetails {
  /** HTTP status of the provider's answer; absent when no answer came (timeout, network) or nothing was sent. */
  status?: number;
  /** The provider's own error code, when its body carried one. */
  code?: string;
  /** The provider's own message, or a short excerpt of a body we could not parse. */
  providerMessage?: string;
  /** The request field at fault, for validation errors found before sending or by the contract check. */
  field?: string;
  /** How long the provider asked us to wait, from `Retry-After`. */
  retryAfterMs?: number;
  /**
   * The provider may have made the change, or may still make it, and nothing read tells which: an answer that did not
   * come in time for a change the lists do not show yet, a lost answer whose list could not be read, or a map whose
   * answer was lost each time it was sent.
   */
  mayStillLand?: boolean;
  cause?: unknown;
}

const ADVICE: Record<ProviderErrorKind, string> = {
  auth: 'The provider refused the API key: check VOICE_API_KEY.',
  not_found: 'The provider does not know that item: it may have been deleted or released already.',
  conflict: 'The provider refused because of the current state of that item.',
  validation: 'The provider rejected the request as invalid.',
  rate_limited: 'The provider is limiting requests: try again shortly.',
  unavailable: 'The provider is unavailable right now: try again in a minute.',
  timeout: 'The provider did not answer in time: try again in a minute.',
  network: 'The provider could not be reached: check VOICE_API_BASE_URL and the network.',
  bad_response: 'The provider answered with something outside its contract.',
  withheld:
    'Nothing was sent to the provider: this copy of Voice Ops lost its hold on the database, and another may be ' +
    'acting in its place. Try again in a moment.',
};

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly status?: number;
  readonly code?: string;
  readonly providerMessage?: string;
  readonly field?: string;
  readonly retryAfterMs?: number;
  readonly mayStillLand?: boolean;

  constructor(
    readonly kind: ProviderErrorKind,
    message: string,
    { cause, ...details }: ProviderErrorDetails = {},
  ) {
    super(message, cause === undefined ? undefined : { cause });
    Object.assign(this, details);
  }
}

function kindForStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status === 400 || status === 422) return 'validation';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500) return 'unavailable';
  return 'bad_response';
}

const EXCERPT_LENGTH = 200;

/** Reads the provider's code and message from any of the four body shapes we know, else an excerpt. */
function parseErrorBody(text: string): { code?: string; message?: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return text.trim() ? { message: excerpt(text) } : {};
  }
  const info = errorInfoBody.safeParse(json);
  if (info.success) return { code: info.data.error, message: info.data.info };
  const list = errorListBody.safeParse(json);
  if (list.success) {
    const [first] = list.data.errors;
    return { code: first?.code, message: first?.detail ?? first?.title };
  }
  const problem = problemBody.safeParse(json);
  if (problem.success) return { code: problem.data.type, message: problem.data.detail ?? problem.data.title };
  const plain = messageBody.safeParse(json);
  if (plain.success) return { code: plain.data.code, message: plain.data.message };
  return { message: excerpt(text) };
}

/** A body flattened to one line and cut short, safe to put in a message. */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

/** Builds the error for a non-2xx answer: kind from the status, details from the body. */
export function errorFromResponse(status: number, bodyText: string, retryAfterMs?: number): ProviderError {
  const kind = kindForStatus(status);
  const { code, message } = parseErrorBody(bodyText);
  const said = message ? ` The provider said: ${message}` : '';
  return new ProviderError(kind, `${ADVICE[kind]}${said} (HTTP ${status}${code ? `, ${code}` : ''})`, {
    status,
    code,
    providerMessage: message,
    retryAfterMs,
  });
}

export function adviceFor(kind: ProviderErrorKind): string {
  return ADVICE[kind];
}
