// Both sides of the wire checked against the schemas: our inputs before anything is sent, the provider's
// answers before anyone relies on them. Each failure names the field at fault.
import type { z } from 'zod';
import { adviceFor, excerpt, ProviderError } from './errors.js';

const SHOWN_INPUT_LENGTH = 40;

/**
 * Returns the parsed input, or throws a 'validation' error naming the field and what was given.
 * `name` names a bare value, such as an id, which has no field path of its own.
 */
export function checkInput<T>(schema: z.ZodType<T>, input: unknown, name = 'input'): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error);
  const field = issue.path.map(String).join('.') || name;
  // Our schema messages read as a predicate ("must be …"); zod's own ("Invalid input: …") need a colon.
  const joiner = issue.message.startsWith('must') ? ' ' : ': ';
  throw new ProviderError('validation', `${field}${joiner}${issue.message} (got ${show(valueAt(input, issue.path))})`, {
    field,
  });
}

/** Parses a 2xx body and checks it against the response schema; extra fields are tolerated. */
export function checkResponse<T>(schema: z.ZodType<T>, text: string, context: string, status?: number): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    const body = text.trim() ? `"${excerpt(text)}"` : 'empty';
    throw new ProviderError('bad_response', `${adviceFor('bad_response')} The body is not JSON: ${body} (${context})`, {
      status,
      cause,
    });
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = firstIssue(parsed.error);
  const field = issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  const where = field ? `Field ${field}` : 'The body';
  const problem = problemWith(issue, valueAt(json, issue.path));
  throw new ProviderError('bad_response', `${adviceFor('bad_response')} ${where}: ${problem} (${context})`, {
    status,
    field,
  });
}

/** What is wrong with a value of an answer, in words: zod's own would show users "received undefined". */
function problemWith(issue: z.ZodError['issues'][number], value: unknown): string {
  if (issue.code !== 'invalid_type') return issue.message;
  return value === undefined ? 'missing' : `should be a ${issue.expected}, not ${show(value)}`;
}

function firstIssue(error: z.ZodError): z.ZodError['issues'][number] {
  const [issue] = error.issues;
  if (!issue) throw new Error('zod reported a failure without issues');
  return issue;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The offending value for a message, cut short so a pasted essay does not flood the reply. */
function show(value: unknown): string {
  if (typeof value === 'string') {
    if (value.length <= SHOWN_INPUT_LENGTH) return JSON.stringify(value);
    return `${JSON.stringify(`${value.slice(0, SHOWN_INPUT_LENGTH)}…`)} (${value.length} characters)`;
  }
  if (Array.isArray(value)) return 'an array';
  return value !== null && typeof value === 'object' ? 'an object' : String(value);
}
