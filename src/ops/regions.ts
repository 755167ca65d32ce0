// The regions the app knows: offered by the search picker, accepted as filters, and told from a number's country
// calling code, because the provider's purchased list says nothing of a number's region.
import { intlRegionName } from './locales.js';
import { type Failure, fail } from './types.js';

export interface Region {
  code: string;
  name: string;
  /** Country calling code, without "+". */
  callingCode: string;
}

export const REGIONS: readonly Region[] = [
  { code: 'US', name: 'United States', callingCode: '1' },
  { code: 'CA', name: 'Canada', callingCode: '1' },
  { code: 'GB', name: 'United Kingdom', callingCode: '44' },
  { code: 'DE', name: 'Germany', callingCode: '49' },
  { code: 'FR', name: 'France', callingCode: '33' },
  { code: 'ES', name: 'Spain', callingCode: '34' },
  { code: 'IT', name: 'Italy', callingCode: '39' },
  { code: 'NL', name: 'Netherlands', callingCode: '31' },
  { code: 'AU', name: 'Australia', callingCode: '61' },
  { code: 'BR', name: 'Brazil', callingCode: '55' },
  { code: 'JP', name: 'Japan', callingCode: '81' },
  { code: 'IN', name: 'India', callingCode: '91' },
  { code: 'MX', name: 'Mexico', callingCode: '52' },
  { code: 'IE', name: 'Ireland', callingCode: '353' },
  { code: 'BE', name: 'Belgium', callingCode: '32' },
  { code: 'CH', name: 'Switzerland', callingCode: '41' },
  { code: 'AT', name: 'Austria', callingCode: '43' },
  { code: 'SE', name: 'Sweden', callingCode: '46' },
  { code: 'NO', name: 'Norway', callingCode: '47' },
  { code: 'DK', name: 'Denmark', callingCode: '45' },
  { code: 'PL', name: 'Poland', callingCode: '48' },
  { code: 'PT', name: 'Portugal', callingCode: '351' },
  { code: 'NZ', name: 'New Zealand', callingCode: '64' },
  { code: 'SG', name: 'Singapore', callingCode: '65' },
];

// Canada shares +1 with the United States (and the Caribbean members of the NANP); its area codes tell it apart.
// Other +1 numbers are counted as US: the Caribbean countries are not told apart.
const CANADIAN_AREA_CODES = new Set(
  (
    '204 226 236 249 250 263 289 306 343 354 365 367 368 382 403 416 418 428 431 437 438 450 468 474 506 514 ' +
    '519 548 579 581 584 587 604 613 639 647 672 683 705 709 742 753 778 780 782 807 819 825 867 873 879 902 905'
  ).split(' '),
);

/** Longest calling codes first, so that +353 (Ireland) is not read as +35x. */
const BY_CALLING_CODE = [...REGIONS]
  .filter((region) => region.code !== 'CA')
  .sort((a, b) => b.callingCode.length - a.callingCode.length);

export function isKnownRegion(code: string): boolean {
  return REGIONS.some((region) => region.code === code);
}

/** A region code the table does not know, answered with the ones it does. */
export function unknownRegion(code: string): Failure | undefined {
  if (isKnownRegion(code)) return undefined;
  const known = REGIONS.map((region) => `${region.code} (${region.name})`).join(', ');
  return fail('invalid', `${code} is not a region Voice Ops knows. Known regions: ${known}.`, { field: 'region' });
}

/** The app's region whose English name is `text` in any case and spacing (`germany`, `united  kingdom`). */
export function regionNamed(text: string): Region | undefined {
  const wanted = text.trim().replace(/\s+/g, ' ').toLowerCase();
  return REGIONS.find((region) =>
    [region.name, intlRegionName(region.code)].some((name) => name?.toLowerCase() === wanted),
  );
}

export function regionName(code: string): string | undefined {
  return REGIONS.find((region) => region.code === code)?.name;
}

/** The region of an E.164 number from its country calling code, or undefined when the table does not know it. */
export function regionOf(number: string): string | undefined {
  const digits = number.startsWith('+') ? number.slice(1) : number;
  const region = BY_CALLING_CODE.find((candidate) => digits.startsWith(candidate.callingCode));
  if (region?.code === 'US' && CANADIAN_AREA_CODES.has(digits.slice(1, 4))) return 'CA';
  return region?.code;
}
