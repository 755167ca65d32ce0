// Languages offered by the agent form; any other locale tag can be typed in its "Other locale" field.

/** The Language picker's last option: the locale is the one typed in the field below. */
export const OTHER_LOCALE = 'other';

/** The form's languages, most asked for first: the same list that language names are suggested from. */
export { COMMON_LOCALES } from '../../ops/api.js';
