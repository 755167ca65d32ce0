import { describe, expect, it } from 'vitest';
import { didYouMean, localesFor } from '../../src/ops/locales.js';

const tags = (typed: string) => localesFor(typed).map((locale) => locale.tag);

describe('localesFor', () => {
  it('finds the locales of a language by its English name, in any case', () => {
    expect(tags('german')).toEqual(['de-DE', 'de-AT', 'de-CH']);
    expect(tags('German')).toEqual(['de-DE', 'de-AT', 'de-CH']);
    expect(tags('english')).toEqual(['en-US', 'en-GB', 'en-AU', 'en-CA']);
    expect(tags('french')).toEqual(['fr-FR', 'fr-CA']);
  });

  it('finds them by the language’s own name, with or without its accents, and by its code', () => {
    expect(tags('Deutsch')).toEqual(['de-DE', 'de-AT', 'de-CH']);
    expect(tags('francais')).toEqual(['fr-FR', 'fr-CA']);
    expect(tags('español')).toEqual(['es-ES', 'es-MX', 'es-US']);
    expect(tags('de')).toEqual(['de-DE', 'de-AT', 'de-CH']);
  });

  it('finds the form’s Norwegian Bokmål for Norwegian, and a country’s first language for its name', () => {
    expect(tags('norwegian')[0]).toBe('nb-NO');
    expect(tags('Germany')).toEqual(['de-DE']);
  });

  it('finds nothing for a word that names no language', () => {
    expect(tags('Support')).toEqual([]);
    expect(tags('')).toEqual([]);
  });
});

describe('didYouMean', () => {
  it('lists each locale with its language and country, marked as the surface shows code', () => {
    expect(didYouMean('german')).toBe(
      'Did you mean de-DE (German, Germany), de-AT (German, Austria) or de-CH (German, Switzerland)?',
    );
    expect(didYouMean('japanese', (tag) => `\`${tag}\``)).toBe('Did you mean `ja-JP` (Japanese, Japan)?');
    expect(didYouMean('desk')).toBeUndefined();
  });
});
