// Which language and region codes exist, by the ICU data Node carries: the provider states only a locale's shape, so
// a made-up tag (`xx-YY`) would be accepted by it and serve no caller.
import { type Failure, fail } from './types.js';

const LANGUAGES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
const REGIONS = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
/** Codes Intl names although they name nothing: "Unknown language", "Unknown Region". */
const UNKNOWN = new Set(['und', 'ZZ']);

function nameOf(names: Intl.DisplayNames, code: string): string | undefined {
  return UNKNOWN.has(code) ? undefined : names.of(code);
}

/** The English name of a region code (`DE` → Germany), or undefined when Intl knows none. */
export function intlRegionName(code: string): string | undefined {
  return nameOf(REGIONS, code);
}

/**
 * A locale tag of the right shape (`sv-SE`) whose language or region is unknown, refused with the part at fault; a
 * known one passes (undefined).
 */
export function unknownLocale(tag: string): Failure | undefined {
  const [language = '', region = ''] = tag.split('-');
  const unknown = [
    ...(nameOf(LANGUAGES, language) ? [] : [`${language} is not a language code`]),
    ...(nameOf(REGIONS, region) ? [] : [`${region} is not a region code`]),
  ];
  if (!unknown.length) return undefined;
  return fail(
    'invalid',
    `${tag} is not a locale: ${unknown.join(' and ')}. Use a language and a region that exist, e.g. sv-SE (Swedish, Sweden).`,
    { field: 'language' },
  );
}
