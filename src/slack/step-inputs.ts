// What each Workflow Builder step takes, as the manifests declare it (a test holds the two together), checked with
// the schemas and the grammar the commands use.
import { z } from 'zod';
import { MAX_BATCH_ITEMS, type NumberFilter } from '../ops/api.js';
import { agentName, language, phoneNumber, region, resourceId } from '../provider/schemas.js';
import { compactNumber, normalizeLocale, parseNumberFilter, tokenize } from './command.js';

/** Workflow Builder sends an optional input left empty as an empty string, or not at all. */
const optionalText = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  z.string().optional(),
);

const userId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'must be a Slack user id, e.g. the person who ran the workflow');

/** `slack#/types/interactivity`: the person whose click started the workflow, which no builder can set. */
const interactivity = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  z
    .object({
      interactor: z.object({ id: userId, secret: z.string() }),
      interactivity_pointer: z.string(),
    })
    .optional(),
);

/**
 * Who the builder names, and where; and who Slack says ran the workflow. A step acts as the person named, at once
 * when Slack vouches it is them, else only once they confirm with their own click (docs/workflows.md).
 */
const person = z.object({
  user_id: userId,
  interactivity,
  channel_id: z.preprocess(
    (value) => (value === '' || value === null ? undefined : value),
    z
      .string()
      .regex(/^[CDG][A-Z0-9]{2,}$/, 'must be a Slack channel id')
      .optional(),
  ),
});

/** Numbers as a list (`+14155550100, +14155550101`, any separator) or as a `/voice numbers` filter (`unrouted DE`). */
const numbersOrFilter = z
  .string()
  .trim()
  .min(1, 'must name numbers (`+14155550100 +14155550101`) or a `/voice numbers` filter (`unrouted DE`)')
  .transform((text, ctx): { numbers: string[] } | { filter: NumberFilter } => {
    const words = text.split(/[\s,;]+/).filter(Boolean);
    if (words.every((word) => word.startsWith('+'))) {
      const numbers = [...new Set(words.map((word) => compactNumber([word])))];
      const wrong = numbers.find((number) => !phoneNumber.safeParse(number).success);
      if (wrong) ctx.addIssue({ code: 'custom', message: `names ${wrong}, which is not an E.164 number` });
      return { numbers };
    }
    // A filter reads as the command's does, an agent's name with spaces in quotes.
    const parsed = parseNumberFilter(tokenize(text.replace(/[,;]/g, ' ')), 'numbers');
    if ('filter' in parsed) return { filter: parsed.filter };
    ctx.addIssue({ code: 'custom', message: parsed.ok ? 'is not a filter' : parsed.error });
    return z.NEVER;
  });

/** An input's value as a sentence shows it: text in quotes, anything else as JSON; cut short. */
const shown = (value: unknown): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const short = text.length > 40 ? `${text.slice(0, 39)}…` : text;
  return typeof value === 'string' ? `“${short}”` : short;
};

/** A count as Slack sends it (a number) or as a person types it (`3`): text that is not one is named as such. */
const count = z
  .unknown()
  .transform((value, ctx) => {
    const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof number === 'number' && !Number.isNaN(number)) return number;
    ctx.addIssue({ code: 'custom', message: `${shown(value)} is not a count; write it in digits, e.g. 3.` });
    return z.NEVER;
  })
  .pipe(
    z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_BATCH_ITEMS, `must be at most ${MAX_BATCH_ITEMS}`),
  );

/** Each step's inputs, by the callback_id the manifests give it. */
export const STEP_INPUTS = {
  buy_numbers: person.extend({
    region: z.string().trim().toUpperCase().pipe(region),
    count,
    digits: optionalText.pipe(
      z
        .string()
        .regex(/^\d{1,15}$/, 'must be digits, e.g. 415')
        .optional(),
    ),
  }),
  create_agent: person.extend({
    name: agentName,
    language: z.string().trim().transform(normalizeLocale).pipe(language),
  }),
  route_numbers: person.extend({ numbers: numbersOrFilter, agent_id: resourceId }),
  release_numbers: person.extend({ numbers: numbersOrFilter }),
  export_routing: person,
} as const;

export type StepName = keyof typeof STEP_INPUTS;
export type StepInputs<N extends StepName> = z.output<(typeof STEP_INPUTS)[N]>;

/** What an input of each type takes, as a sentence names it. */
const KINDS: Record<string, string> = { string: 'text', number: 'a number', object: 'what Slack sends for it' };

/** The inputs of a step, or a sentence for the workflow's builder naming each input at fault. */
export function checkInputs<N extends StepName>(
  name: N,
  inputs: unknown,
): { ok: true; inputs: StepInputs<N> } | { ok: false; error: string } {
  const given: Record<string, unknown> = typeof inputs === 'object' && inputs !== null ? { ...inputs } : {};
  const checked = STEP_INPUTS[name].safeParse(given);
  if (checked.success) return { ok: true, inputs: checked.data as StepInputs<N> };
  const problems = checked.error.issues.map((issue) => {
    const input = String(issue.path[0] ?? 'inputs');
    const value = given[input];
    // Only an input Slack left out, or sent empty, is missing: one given in the wrong form is named with its value.
    if (value === undefined || value === null || value === '') {
      return `The input “${input}” is missing: set it in Workflow Builder.`;
    }
    if (issue.code === 'invalid_type' && issue.expected in KINDS)
      return `The input “${input}”: ${shown(value)} is not ${KINDS[issue.expected]}.`;
    // The schemas' words continue a sentence (`must be …`); the grammar's are sentences of their own.
    return /^[a-z]/.test(issue.message)
      ? `The input “${input}” ${issue.message}.`
      : `The input “${input}”: ${issue.message}`;
  });
  return { ok: false, error: problems.join(' ') };
}
