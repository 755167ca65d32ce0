// The numbers the sandbox offers for sale: the same every start, derived from indices, never random.
// Where a regulator reserves a range for fiction (Ofcom drama numbers, NANP 555-01xx, ARCEP, ACMA,
// Bundesnetzagentur), the numbers come from it, so a sandbox number can never ring a real person.
import type { AvailableNumber } from '../provider/schemas.js';

interface RegionPlan {
  region: string;
  /** International prefixes ("+", country code, area code, exchange) the numbers are spread across. */
  prefixes: string[];
  lineDigits: number;
  lineStart: number;
}

export const NUMBERS_PER_REGION = 55;

const PLANS: RegionPlan[] = [
  // NANP: area code, then 555 with lines 0100-0199, the range reserved for fiction.
  {
    region: 'US',
    prefixes: ['+1212555', '+1312555', '+1415555', '+1512555', '+1617555'],
    lineDigits: 4,
    lineStart: 100,
  },
  {
    region: 'CA',
    prefixes: ['+1416555', '+1604555', '+1514555', '+1403555', '+1613555'],
    lineDigits: 4,
    lineStart: 100,
  },
  // Ofcom drama ranges: London 020 7946 0xxx, Leeds 0113 496 0xxx, Manchester 0161 496 0xxx.
  { region: 'GB', prefixes: ['+442079460', '+441134960', '+441614960'], lineDigits: 3, lineStart: 0 },
  // Bundesnetzagentur drama blocks: Berlin, Frankfurt, Hamburg, Munich.
  { region: 'DE', prefixes: ['+493023125', '+496990009', '+494066969', '+498999998'], lineDigits: 3, lineStart: 0 },
  // ARCEP fiction blocks, one per geographic zone 01 to 05.
  { region: 'FR', prefixes: ['+3319900', '+3326191', '+3335301', '+3346571', '+3353649'], lineDigits: 4, lineStart: 0 },
  // No reserved ranges below: plausible geographic blocks with the right national length.
  { region: 'ES', prefixes: ['+3491555', '+3493555', '+3496555'], lineDigits: 4, lineStart: 0 },
  { region: 'IT', prefixes: ['+39066988', '+39024321'], lineDigits: 4, lineStart: 0 },
  { region: 'NL', prefixes: ['+3120555', '+3110555'], lineDigits: 4, lineStart: 0 },
  // ACMA fiction block 5550 in each geographic area code.
  { region: 'AU', prefixes: ['+6125550', '+6135550', '+6175550', '+6185550'], lineDigits: 4, lineStart: 0 },
  { region: 'BR', prefixes: ['+55113555', '+55213555'], lineDigits: 4, lineStart: 0 },
  { region: 'JP', prefixes: ['+8135555', '+8165555'], lineDigits: 4, lineStart: 0 },
  { region: 'IN', prefixes: ['+91112345', '+91222345'], lineDigits: 4, lineStart: 0 },
];

/** Every 7th number is SMS-only, so the app has to check capabilities before routing voice to it. */
function capabilities(index: number): string[] {
  return index % 7 === 6 ? ['sms'] : ['voice', 'sms'];
}

function regionNumbers({ region, prefixes, lineDigits, lineStart }: RegionPlan): AvailableNumber[] {
  return Array.from({ length: NUMBERS_PER_REGION }, (_, index) => {
    const prefix = prefixes[index % prefixes.length];
    const line = String(lineStart + Math.floor(index / prefixes.length)).padStart(lineDigits, '0');
    return {
      id: `avl_${region}_${String(index).padStart(3, '0')}`,
      number: `${prefix}${line}`,
      region,
      capabilities: capabilities(index),
    };
  });
}

export const REGIONS: readonly string[] = PLANS.map((plan) => plan.region);
export const INVENTORY: readonly AvailableNumber[] = PLANS.flatMap(regionNumbers);

const positionById = new Map(INVENTORY.map((entry, position) => [entry.id, position]));
const byNumber = new Map(INVENTORY.map((entry) => [entry.number, entry]));

export function findInInventory(number: string): AvailableNumber | undefined {
  return byNumber.get(number);
}

// The cursor names the last number served rather than an offset, so buying a number between two pages
// neither skips nor repeats one.
const CURSOR_PREFIX = 'after:';

function encodeCursor(position: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${INVENTORY[position]?.id}`).toString('base64url');
}

/** The inventory position a cursor points after, or undefined when it is not one we issued. */
function decodeCursor(cursor: string): number | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  return text.startsWith(CURSOR_PREFIX) ? positionById.get(text.slice(CURSOR_PREFIX.length)) : undefined;
}

export interface SearchRequest {
  region?: string;
  cursor?: string;
  limit: number;
}

export type SearchResult = { data: AvailableNumber[]; next_cursor: string | null } | 'bad_cursor';

/** One page of the numbers still for sale, in inventory order. */
export function searchAvailable(request: SearchRequest, isTaken: (number: string) => boolean): SearchResult {
  const after = request.cursor === undefined ? -1 : decodeCursor(request.cursor);
  if (after === undefined) return 'bad_cursor';
  const data: AvailableNumber[] = [];
  let last = after;
  for (let position = after + 1; position < INVENTORY.length; position++) {
    const entry = INVENTORY[position];
    if (!entry || (request.region && entry.region !== request.region) || isTaken(entry.number)) continue;
    if (data.length === request.limit) return { data, next_cursor: encodeCursor(last) };
    data.push(entry);
    last = position;
  }
  return { data, next_cursor: null };
}
