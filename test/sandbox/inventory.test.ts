import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { E164_PATTERN } from '../../src/provider/schemas.js';
import { DEFAULT_NUMBERS_PER_REGION, Inventory, MAX_NUMBERS_PER_REGION } from '../../src/sandbox/inventory.js';

const inventory = new Inventory();
const INVENTORY = inventory.entries;
const REGIONS = inventory.regions;
/** The largest inventory the setting allows: every rule below holds for it too. */
const LARGEST = new Inventory(MAX_NUMBERS_PER_REGION);

/** Country calling code and national significant number length for each region. */
const NUMBERING: Record<string, { code: string; nationalDigits: number }> = {
  US: { code: '1', nationalDigits: 10 },
  CA: { code: '1', nationalDigits: 10 },
  GB: { code: '44', nationalDigits: 10 },
  DE: { code: '49', nationalDigits: 10 },
  FR: { code: '33', nationalDigits: 9 },
  ES: { code: '34', nationalDigits: 9 },
  IT: { code: '39', nationalDigits: 10 },
  NL: { code: '31', nationalDigits: 9 },
  AU: { code: '61', nationalDigits: 9 },
  BR: { code: '55', nationalDigits: 10 },
  JP: { code: '81', nationalDigits: 9 },
  IN: { code: '91', nationalDigits: 10 },
};

describe('sandbox inventory', () => {
  it('covers at least the twelve promised regions with at least 50 numbers each', () => {
    expect(REGIONS).toEqual(expect.arrayContaining(Object.keys(NUMBERING)));
    for (const region of REGIONS) {
      expect(INVENTORY.filter((entry) => entry.region === region).length, region).toBeGreaterThanOrEqual(50);
    }
  });

  it.each([
    ['default', inventory],
    ['largest', LARGEST],
  ])('holds only valid, unique E.164 numbers with the right country code and national length (%s)', (_, sized) => {
    for (const { number, region } of sized.entries) {
      expect(number).toMatch(E164_PATTERN);
      const plan = NUMBERING[region];
      if (!plan) throw new Error(`no numbering plan for ${region}`);
      expect(number.startsWith(`+${plan.code}`), number).toBe(true);
      expect(number.length - 1 - plan.code.length, number).toBe(plan.nationalDigits);
    }
    expect(new Set(sized.entries.map((entry) => entry.number)).size).toBe(sized.entries.length);
    expect(new Set(sized.entries.map((entry) => entry.id)).size).toBe(sized.entries.length);
  });

  it.each([
    ['default', inventory],
    ['largest', LARGEST],
  ])('follows NANP rules for US and CA and stays in the fictional 555-01xx range (%s)', (_, sized) => {
    const nanp = sized.entries.filter((entry) => entry.region === 'US' || entry.region === 'CA');
    for (const { number } of nanp) expect(number).toMatch(/^\+1[2-9]\d{2}55501\d{2}$/);
  });

  it('grows by setting: N numbers in every region, the default ones unchanged at the start of each', () => {
    expect(INVENTORY).toHaveLength(DEFAULT_NUMBERS_PER_REGION * REGIONS.length);
    const sized = new Inventory(1000);
    for (const region of REGIONS) {
      const numbers = sized.entries.filter((entry) => entry.region === region);
      expect(numbers, region).toHaveLength(1000);
      const defaults = INVENTORY.filter((entry) => entry.region === region);
      if (region !== 'US' && region !== 'CA') expect(numbers.slice(0, defaults.length)).toEqual(defaults);
    }
    expect(() => new Inventory(MAX_NUMBERS_PER_REGION + 1)).toThrow(/from 1 to 2000/);
    expect(() => new Inventory(0)).toThrow(/from 1 to 2000/);
  });

  it('mixes in numbers without voice in every region, while most have it', () => {
    for (const region of REGIONS) {
      const numbers = INVENTORY.filter((entry) => entry.region === region);
      const withoutVoice = numbers.filter((entry) => !entry.capabilities.includes('voice'));
      expect(withoutVoice.length, region).toBeGreaterThan(0);
      expect(withoutVoice.length, region).toBeLessThan(numbers.length / 4);
    }
  });

  it('is the same on every load', async () => {
    vi.resetModules();
    const reloaded = new (await import('../../src/sandbox/inventory.js')).Inventory();
    expect(reloaded.entries).not.toBe(INVENTORY);
    expect(reloaded.entries).toEqual(INVENTORY);
  });

  it('pages through exactly the untaken numbers of a region, in order, for any page size', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(undefined, ...REGIONS),
        fc.integer({ min: 1, max: 100 }),
        fc.uniqueArray(fc.constantFrom(...INVENTORY.map((entry) => entry.number)), { maxLength: 40 }),
        (region, limit, taken) => {
          const isTaken = (number: string) => taken.includes(number);
          const seen: string[] = [];
          let cursor: string | undefined;
          do {
            const page = inventory.search({ region, cursor, limit }, isTaken);
            if (page === 'bad_cursor') throw new Error('the sandbox rejected its own cursor');
            // Full pages until the last; an empty page only when there is nothing at all.
            if (page.next_cursor !== null) expect(page.data).toHaveLength(limit);
            if (cursor !== undefined) expect(page.data.length).toBeGreaterThan(0);
            seen.push(...page.data.map((entry) => entry.number));
            cursor = page.next_cursor ?? undefined;
          } while (cursor !== undefined);
          const expected = INVENTORY.filter((entry) => (!region || entry.region === region) && !isTaken(entry.number));
          expect(seen).toEqual(expected.map((entry) => entry.number));
        },
      ),
      { numRuns: 200 },
    );
  });
});
