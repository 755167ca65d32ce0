// Wire shapes of the provider's v1 API. The client checks requests and responses against them and the
// sandbox serves them, so the two check each other.
import { z } from 'zod';

export const E164_PATTERN = /^\+[1-9]\d{1,14}$/;

export const phoneNumber = z
  .string()
  .regex(
    E164_PATTERN,
    'must be an E.164 number: "+", its country code, then the number, 2 to 15 digits in all, the first not 0',
  );
export const language = z
  .string()
  .regex(/^[a-z]{2,3}-[A-Z]{2}$/, 'must be a locale tag: language and region joined by a hyphen, e.g. en-US');
export const region = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter region code, e.g. US');
// Ids travel in Slack buttons and select options, whose values Slack caps at 150 characters: a longer id could not
// be offered in a picker, so it is refused where it enters, in a command and in the provider's answers.
export const ID_MAX = 150;
const idTooLong = `must be at most ${ID_MAX} characters`;
export const resourceId = z.string().trim().min(1, 'must not be empty').max(ID_MAX, idTooLong);
const providerId = z.string().max(ID_MAX, idTooLong);

/**
 * Characters that would let text break a line or reorder itself wherever it is shown: C0 and C1 controls (line feed,
 * tab, carriage return…) and DEL, the Unicode line and paragraph separators, and bidi embeddings, overrides and
 * isolates.
 */
export const CONTROL_CHARACTERS = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;

const NAMED_CONTROLS: Record<string, string> = { '\n': 'a line break', '\r': 'a carriage return', '\t': 'a tab' };

/** Why `text` may not be a name, when it holds a control character: the predicate names the first one found. */
export function controlCharacterProblem(text: string): string | undefined {
  const found = CONTROL_CHARACTERS.exec(text)?.[0];
  if (found === undefined) return undefined;
  const codePoint = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  const what = NAMED_CONTROLS[found] ? `${NAMED_CONTROLS[found]}, ${codePoint}` : codePoint;
  return `must be one line of plain text, without line breaks, tabs or other control characters (found ${what})`;
}

export const agentName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .check((ctx) => {
    const problem = controlCharacterProblem(ctx.value);
    if (problem) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });
export const routeType = z.literal('ai_agent', { error: 'must be ai_agent, the only route type the API accepts' });

// Requests

export const createAgentRequest = z.object({ name: agentName, language });
export type CreateAgentRequest = z.infer<typeof createAgentRequest>;

export const mapNumberRequest = z.object({ phone_number: phoneNumber, route_type: routeType, agent_id: resourceId });

export const buyNumberRequest = z.object({ number: phoneNumber });

export const MAX_PAGE_SIZE = 100;
export const searchNumbersQuery = z.object({
  region: region.optional(),
  limit: z.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
  cursor: z.string().min(1).optional(),
});
export type SearchNumbersQuery = z.infer<typeof searchNumbersQuery>;

// Responses. Unknown fields are tolerated (stripped); statuses stay open strings because the spec
// leaves states beyond the documented ones unstated.

export const agent = z.object({ id: providerId, name: z.string(), status: z.string() });
export type Agent = z.infer<typeof agent>;

export const createdAgent = agent.extend({ agent_token: z.string() });
export type CreatedAgent = z.infer<typeof createdAgent>;

export const agentList = z.object({ data: z.array(agent) });

export const deletedAgent = z.object({ id: providerId, status: z.string() });
export type DeletedAgent = z.infer<typeof deletedAgent>;

export const routing = z.object({
  phone_number: z.string(),
  route_type: z.string(),
  agent_id: z.string(),
  status: z.string(),
});
export type Routing = z.infer<typeof routing>;

export const availableNumber = z.object({
  id: providerId,
  number: z.string(),
  region: z.string(),
  capabilities: z.array(z.string()),
});
export type AvailableNumber = z.infer<typeof availableNumber>;

export const availableNumberPage = z.object({ data: z.array(availableNumber), next_cursor: z.string().nullable() });
export type AvailableNumberPage = z.infer<typeof availableNumberPage>;

export const purchasedNumber = z.object({ id: providerId, number: z.string(), status: z.string() });
export type PurchasedNumber = z.infer<typeof purchasedNumber>;

export const purchasedNumberList = z.object({ data: z.array(purchasedNumber) });

export const releasedNumber = z.object({ id: providerId, status: z.string() });
export type ReleasedNumber = z.infer<typeof releasedNumber>;

/** The success statuses the spec names; a response with another status did not do what was asked. */
export const EXPECTED_STATUS = {
  agentCreated: 'active',
  agentDeleted: 'deleted',
  numberBought: 'active',
  numberReleased: 'released',
  routeConnected: 'connected',
} as const;

/** Error bodies the client understands (PRODUCT.md, "The provider's unstated parts"). */
export const errorInfoBody = z.object({ error: z.string(), info: z.string().optional() });
export const errorListBody = z.object({
  errors: z
    .array(z.object({ code: z.string().optional(), title: z.string().optional(), detail: z.string().optional() }))
    .min(1),
});
export const messageBody = z.object({ message: z.string(), code: z.string().optional() });
export const problemBody = z.object({
  type: z.string().optional(),
  title: z.string(),
  detail: z.string().optional(),
  status: z.number().optional(),
});
