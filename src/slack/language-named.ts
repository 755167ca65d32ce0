// `/voice agents create Support german`: a language named where its locale goes. Without a locale's shape the last
// word would be taken as part of the agent's name, and the form opened; the person meant a language, so they are
// told the locales it stands for.
import { didYouMean, localesFor, namesLanguage } from '../ops/api.js';
import { code } from './mrkdwn.js';

/** Characters of the name and the word echoed back. */
const ECHO_MAX = 60;

/** The answer, in mrkdwn, when the last of `args` (after a name) names a language; else undefined. */
export function languageNamed(args: string[]): string | undefined {
  const typed = args.at(-1);
  // A code (`HR`, `IT`, `no`) after a name is as likely part of it: only a language's name is taken as one.
  if (args.length < 2 || !typed || typed.length <= 3 || !namesLanguage(typed)) return undefined;
  const suggested = didYouMean(typed, (tag) => code(tag));
  const [first] = localesFor(typed);
  if (!suggested || !first) return undefined;
  const agentName = args.slice(0, -1).join(' ');
  return (
    `${code(typed, ECHO_MAX)} names a language, and an agent's language is a locale. ${suggested} For example: ` +
    `${code(`/voice agents create ${agentName} ${first.tag}`, ECHO_MAX * 2)}. An agent named so is made with the ` +
    `name in quotes: ${code(`/voice agents create "${agentName} ${typed}"`, ECHO_MAX * 2)}.`
  );
}
