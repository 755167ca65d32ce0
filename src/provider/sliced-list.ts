// The account's lists come whole: 10,000 numbers are about 600 kB of JSON, which JSON.parse and the schema check would
// take tens of milliseconds to read in one go, while every acknowledgement due meanwhile waits on the event loop.
// Here the body's `data` array is found by a scan, and its items are parsed and checked a few hundred at a time,
// with a turn of the event loop between slices. A body the scan does not expect, or any item that fails, is read
// again by the whole-body check, so that what is wrong is reported exactly as for any other answer.
import type { z } from 'zod';
import { nextTurn } from '../slices.js';
import { checkResponse } from './contract.js';

/** Characters scanned between turns of the event loop: about a millisecond's work. */
const SCAN_SLICE = 100_000;
/** Items parsed and checked between turns of the event loop: about a millisecond's work. */
const ITEM_SLICE = 500;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]

/**
 * Where the top-level object's `data` array opens, and where each of its items ends (the offset of the comma or the
 * closing bracket after it); undefined when there is no one such array.
 */
async function locateItems(text: string): Promise<{ open: number; ends: number[] } | undefined> {
  let depth = 0;
  let open = -1;
  let closed = false;
  let key = '';
  const ends: number[] = [];
  for (let at = 0, turn = SCAN_SLICE; at < text.length; at++) {
    if (at >= turn) {
      turn += SCAN_SLICE;
      await nextTurn();
    }
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      const start = at;
      for (at++; at < text.length && text.charCodeAt(at) !== QUOTE; at++) if (text.charCodeAt(at) === BACKSLASH) at++;
      // A string in the top-level object: the last one before a value is that value's key.
      if (depth === 1) key = text.slice(start + 1, at);
    } else if (OPEN.has(char)) {
      depth++;
      if (depth === 2 && key === 'data' && char === 0x5b) {
        if (open >= 0) return undefined;
        open = at;
      }
    } else if (CLOSE.has(char)) {
      if (depth === 2 && open >= 0 && !closed) {
        ends.push(at);
        closed = true;
      }
      depth--;
    } else if (char === COMMA && depth === 2 && open >= 0 && !closed) ends.push(at);
  }
  return closed ? { open, ends } : undefined;
}

/** Parses and checks a `{ data: [...] }` answer a slice at a time; `schema` is the whole answer's, for its errors. */
export async function checkListResponse<T>(
  schema: z.ZodType<{ data: T[] }>,
  item: z.ZodType<T>,
  text: string,
  context: string,
  status?: number,
): Promise<{ data: T[] }> {
  const whole = () => checkResponse(schema, text, context, status);
  const located = await locateItems(text);
  if (!located) return whole();
  const { open, ends } = located;
  const last = ends.at(-1) ?? open;
  try {
    // The rest of the body must hold as the whole would: JSON, and the answer's shape around its items.
    if (!schema.safeParse(JSON.parse(`${text.slice(0, open)}[]${text.slice(last + 1)}`)).success) return whole();
    const empty = ends.length === 1 && text.slice(open + 1, last).trim() === '';
    const data: T[] = [];
    for (let first = 0; !empty && first < ends.length; first += ITEM_SLICE) {
      const from = first === 0 ? open : (ends[first - 1] ?? open);
      const to = ends[Math.min(first + ITEM_SLICE, ends.length) - 1] ?? last;
      for (const value of JSON.parse(`[${text.slice(from + 1, to)}]`) as unknown[]) {
        const checked = item.safeParse(value);
        if (!checked.success) return whole();
        data.push(checked.data);
      }
      await nextTurn();
    }
    return { data };
  } catch {
    return whole();
  }
}
