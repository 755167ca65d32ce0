// Languages offered by the agent form; any other locale tag can be typed in its "Other locale" field.

/** The Language picker's last option: the locale is the one typed in the field below. */
export const OTHER_LOCALE = 'other';

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
