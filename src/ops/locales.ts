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

/** A well-shaped tag whose language or region is unknown, refused with the part at fault. */
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

/** Locales most asked for, first among those suggested for a language; the agent form offers them. */
export const COMMON_LOCALES: { tag: string; name: string }[] = [
  { tag: 'en-US', name: 'English (United States)' },
  { tag: 'en-GB', name: 'English (United Kingdom)' },
  { tag: 'en-AU', name: 'English (Australia)' },
  { tag: 'en-CA', name: 'English (Canada)' },
  { tag: 'en-IN', name: 'English (India)' },
  { tag: 'es-ES', name: 'Spanish (Spain)' },
  { tag: 'es-MX', name: 'Spanish (Mexico)' },
  { tag: 'es-US', name: 'Spanish (United States)' },
  { tag: 'fr-FR', name: 'French (France)' },
  { tag: 'fr-CA', name: 'French (Canada)' },
  { tag: 'de-DE', name: 'German (Germany)' },
  { tag: 'it-IT', name: 'Italian (Italy)' },
  { tag: 'nl-NL', name: 'Dutch (Netherlands)' },
  { tag: 'pt-BR', name: 'Portuguese (Brazil)' },
  { tag: 'pt-PT', name: 'Portuguese (Portugal)' },
  { tag: 'da-DK', name: 'Danish (Denmark)' },
  { tag: 'nb-NO', name: 'Norwegian Bokmål (Norway)' },
  { tag: 'pl-PL', name: 'Polish (Poland)' },
  { tag: 'tr-TR', name: 'Turkish (Turkey)' },
  { tag: 'ar-SA', name: 'Arabic (Saudi Arabia)' },
  { tag: 'hi-IN', name: 'Hindi (India)' },
  { tag: 'ja-JP', name: 'Japanese (Japan)' },
  { tag: 'ko-KR', name: 'Korean (South Korea)' },
  { tag: 'zh-CN', name: 'Chinese (Mainland China)' },
];

/** Locales suggested for a language name, at most. */
const SUGGESTED_MAX = 4;
/** Region codes Intl names that are no country, or one nobody lives in: never suggested. */
const NOT_COUNTRIES = new Set([
  'AC',
  'AQ',
  'BV',
  'CP',
  'DG',
  'EA',
  'EU',
  'EZ',
  'HM',
  'IC',
  'QO',
  'TA',
  'UN',
  'XA',
  'XB',
  'ZZ',
]);
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const TWO_LETTERS = [...LETTERS].flatMap((first) => [...LETTERS].map((second) => `${first}${second}`));

/** `Français` and `francais` alike: names are compared without case or accents. */
function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

interface Names {
  /** Language codes by their English and native names, and by themselves (`german`, `deutsch`, `de`). */
  languages: Map<string, string>;
  /** Countries by their English names (`germany`), and the languages spoken first in each. */
  regions: Map<string, string>;
  mainLanguage: Map<string, string>;
}

let names: Names | undefined;

/** Built once, on the first name typed where a locale was expected. */
function namesOf(): Names {
  if (names) return names;
  const languages = new Map<string, string>();
  for (const code of TWO_LETTERS.map((pair) => pair.toLowerCase())) {
    const english = nameOf(LANGUAGES, code);
    if (!english) continue;
    const native = new Intl.DisplayNames([code], { type: 'language', fallback: 'none' }).of(code);
    for (const name of [code, english, native])
      if (name && !languages.has(folded(name))) languages.set(folded(name), code);
  }
  const regions = new Map<string, string>();
  const mainLanguage = new Map<string, string>();
  for (const code of TWO_LETTERS) {
    const name = nameOf(REGIONS, code);
    if (!name || NOT_COUNTRIES.has(code)) continue;
    regions.set(folded(name), code);
    const language = new Intl.Locale(`und-${code}`).maximize().language;
    if (language !== 'und') mainLanguage.set(code, language);
  }
  names = { languages, regions, mainLanguage };
  return names;
}

export interface LocaleSuggestion {
  tag: string;
  /** `German, Germany`. */
  name: string;
}

function suggestion(tag: string): LocaleSuggestion | undefined {
  const [language = '', region = ''] = tag.split('-');
  if (unknownLocale(tag)) return undefined;
  return { tag, name: `${nameOf(LANGUAGES, language)}, ${nameOf(REGIONS, region)}` };
}

/**
 * The locales a language's name (`German`, `deutsch`), its code (`de`) or a country's name (`Germany`) stands for,
 * most asked for first: the form's own, else the language's home and the countries that speak it first.
 */
export function localesFor(typed: string): LocaleSuggestion[] {
  const key = folded(typed);
  if (!key) return [];
  const { languages, regions, mainLanguage } = namesOf();
  const country = regions.get(key);
  if (country) {
    const language = mainLanguage.get(country);
    const only = language ? suggestion(`${language}-${country}`) : undefined;
    return only ? [only] : [];
  }
  const language = languages.get(key);
  if (!language) return [];
  // `Norwegian` is also what the form lists as Norwegian Bokmål.
  const common = COMMON_LOCALES.filter(
    (locale) => locale.tag.startsWith(`${language}-`) || folded(locale.name).startsWith(`${key} `),
  ).map((locale) => locale.tag);
  const home = new Intl.Locale(language).maximize().region;
  const spoken = [...mainLanguage].filter(([, main]) => main === language).map(([region]) => `${language}-${region}`);
  const tags = common.length >= 2 ? common : [...common, ...(home ? [`${language}-${home}`] : []), ...spoken];
  const suggestions = [...new Set(tags)].map(suggestion).filter((found) => found !== undefined);
  return suggestions.slice(0, common.length >= 2 ? SUGGESTED_MAX : 3);
}

/** "Did you mean de-DE (German, Germany) or de-AT (German, Austria)?", each tag marked as the surface shows code. */
export function didYouMean(typed: string, mark: (tag: string) => string = (tag) => tag): string | undefined {
  const found = localesFor(typed).map((locale) => `${mark(locale.tag)} (${locale.name})`);
  if (!found.length) return undefined;
  const list = found.length > 1 ? `${found.slice(0, -1).join(', ')} or ${found.at(-1)}` : found.join('');
  return `Did you mean ${list}?`;
}

/** Whether the text is a language's name or code (`german`, `Deutsch`, `de`), rather than a country's or any word. */
export function namesLanguage(typed: string): boolean {
  return namesOf().languages.has(folded(typed));
}
