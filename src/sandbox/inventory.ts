// The numbers the sandbox offers for sale: the same every start for a given size, derived from indices, never
// random. Where a regulator reserves a range for fiction (Ofcom drama numbers, NANP 555-01xx, ARCEP, ACMA,
// Bundesnetzagentur), the numbers come from it, so a sandbox number can never ring a real person.
import type { AvailableNumber } from '../provider/schemas.js';

interface RegionPlan {
  region: string;
  /** International prefixes ("+", country code, area code, exchange) the numbers are spread across. */
  prefixes: string[];
  /** More prefixes of the same kind, taken in order only when the region holds more numbers than `prefixes` can. */
  reserve?: string[];
  lineDigits: number;
  lineStart: number;
  /** Lines available under each prefix, from `lineStart`. */
  lines: number;
}

export const DEFAULT_NUMBERS_PER_REGION = 55;
/** What every region's plan can hold (the NANP fiction range, 100 lines in each of 20 area codes, is the least). */
export const MAX_NUMBERS_PER_REGION = 2000;

// NANP: an area code, then 555 with lines 0100-0199, the range reserved for fiction in every area code.
const nanp = (areaCodes: string) => areaCodes.split(' ').map((areaCode) => `+1${areaCode}555`);

const PLANS: RegionPlan[] = [
  {
    region: 'US',
    prefixes: nanp('212 312 415 512 617'),
    reserve: nanp('202 213 305 404 503 602 702 206 303 713 214 615 704 801 919'),
    lineDigits: 4,
    lineStart: 100,
    lines: 100,
  },
  {
    region: 'CA',
    prefixes: nanp('416 604 514 403 613'),
    reserve: nanp('780 902 204 306 506 709 705 519 250 418 450 905 647 289 343'),
    lineDigits: 4,
    lineStart: 100,
    lines: 100,
  },
  // Ofcom drama ranges: London 020 7946 0xxx, Leeds 0113 496 0xxx, Manchester 0161 496 0xxx.
  { region: 'GB', prefixes: ['+442079460', '+441134960', '+441614960'], lineDigits: 3, lineStart: 0, lines: 1000 },
  // Bundesnetzagentur drama blocks: Berlin, Frankfurt, Hamburg, Munich.
  {
    region: 'DE',
    prefixes: ['+493023125', '+496990009', '+494066969', '+498999998'],
    lineDigits: 3,
    lineStart: 0,
    lines: 1000,
  },
  // ARCEP fiction blocks, one per geographic zone 01 to 05.
  {
    region: 'FR',
    prefixes: ['+3319900', '+3326191', '+3335301', '+3346571', '+3353649'],
    lineDigits: 4,
    lineStart: 0,
    lines: 10_000,
  },
  // No reserved ranges below: plausible geographic blocks with the right national length.
  { region: 'ES', prefixes: ['+3491555', '+3493555', '+3496555'], lineDigits: 4, lineStart: 0, lines: 10_000 },
  { region: 'IT', prefixes: ['+39066988', '+39024321'], lineDigits: 4, lineStart: 0, lines: 10_000 },
  { region: 'NL', prefixes: ['+3120555', '+3110555'], lineDigits: 4, lineStart: 0, lines: 10_000 },
  // ACMA fiction block 5550 in each geographic area code.
  {
    region: 'AU',
    prefixes: ['+6125550', '+6135550', '+6175550', '+6185550'],
    lineDigits: 4,
    lineStart: 0,
    lines: 10_000,
  },
  { region: 'BR', prefixes: ['+55113555', '+55213555'], lineDigits: 4, lineStart: 0, lines: 10_000 },
  { region: 'JP', prefixes: ['+8135555', '+8165555'], lineDigits: 4, lineStart: 0, lines: 10_000 },
  { region: 'IN', prefixes: ['+91112345', '+91222345'], lineDigits: 4, lineStart: 0, lines: 10_000 },
];

/** Every 7th number is SMS-only, so the app has to check capabilities before routing voice to it. */
function capabilities(index: number): string[] {
  return index % 7 === 6 ? ['sms'] : ['voice', 'sms'];
}

function regionNumbers(plan: RegionPlan, count: number): AvailableNumber[] {
  const { region, lineDigits, lineStart, lines } = plan;
  // The default prefixes keep the default inventory as it always was; a bigger one spreads over the reserve too.
  const spread = Math.max(plan.prefixes.length, Math.ceil(count / lines));
  const prefixes = [...plan.prefixes, ...(plan.reserve ?? [])].slice(0, spread);
  return Array.from({ length: count }, (_, index) => {
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

// The cursor names the last number served rather than an offset, so buying a number between two pages
// neither skips nor repeats one.
const CURSOR_PREFIX = 'after:';

export interface SearchRequest {
  region?: string;
  cursor?: string;
  limit: number;
}

type SearchResult = { data: AvailableNumber[]; next_cursor: string | null } | 'bad_cursor';

/** The numbers for sale, in a fixed order: region by region, as the plans list them. */
export class Inventory {
  readonly entries: readonly AvailableNumber[];
  readonly regions: readonly string[] = PLANS.map((plan) => plan.region);
  readonly #positionById: Map<string, number>;
  readonly #byNumber: Map<string, AvailableNumber>;

  constructor(numbersPerRegion = DEFAULT_NUMBERS_PER_REGION) {
    if (!Number.isInteger(numbersPerRegion) || numbersPerRegion < 1 || numbersPerRegion > MAX_NUMBERS_PER_REGION) {
      throw new RangeError(`numbers per region must be a whole number from 1 to ${MAX_NUMBERS_PER_REGION}`);
    }
    this.entries = PLANS.flatMap((plan) => regionNumbers(plan, numbersPerRegion));
    this.#positionById = new Map(this.entries.map((entry, position) => [entry.id, position]));
    this.#byNumber = new Map(this.entries.map((entry) => [entry.number, entry]));
  }

  find(number: string): AvailableNumber | undefined {
    return this.#byNumber.get(number);
  }

  /** One page of the numbers still for sale, in inventory order. */
  search(request: SearchRequest, isTaken: (number: string) => boolean): SearchResult {
    const after = request.cursor === undefined ? -1 : this.#decodeCursor(request.cursor);
    if (after === undefined) return 'bad_cursor';
    const data: AvailableNumber[] = [];
    let last = after;
    for (let position = after + 1; position < this.entries.length; position++) {
      const entry = this.entries[position];
      if (!entry || (request.region && entry.region !== request.region) || isTaken(entry.number)) continue;
      if (data.length === request.limit) return { data, next_cursor: this.#encodeCursor(last) };
      data.push(entry);
      last = position;
    }
    return { data, next_cursor: null };
  }

  #encodeCursor(position: number): string {
    return Buffer.from(`${CURSOR_PREFIX}${this.entries[position]?.id}`).toString('base64url');
  }

  /** The inventory position a cursor points after, or undefined when it is not one we issued. */
  #decodeCursor(cursor: string): number | undefined {
    const text = Buffer.from(cursor, 'base64url').toString('utf8');
    return text.startsWith(CURSOR_PREFIX) ? this.#positionById.get(text.slice(CURSOR_PREFIX.length)) : undefined;
  }
}
