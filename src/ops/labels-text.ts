// The `# labels` part of a routing text, after its routes: a line per number with labels or an owner, its labels
// sorted and its owner last as Slack writes a user group (`+15550100 de team:sales <!subteam^S0123ABC>`). A routing
// without either has no such part, so that its text is as it was before numbers had tags.
import type { Tags } from '../store/tags.js';
import { isNumberTarget } from './kinds/label-change.js';

const HEADING = '# labels';

/** The lines of the part, heading first, for the numbers of `tags` (agents' are not part of a routing). */
function labelsPart(tags: ReadonlyMap<string, Tags>): string[] {
  const lines = [...tags]
    .filter(([subject]) => isNumberTarget(subject))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([number, { labels, owner }]) =>
      [number, ...labels.toSorted(), ...(owner ? [`<!subteam^${owner}>`] : [])].join(' '),
    );
  return lines.length ? [HEADING, ...lines] : [];
}

/** A routing text with its labels part after it, if any number has tags. */
export const withLabelsPart = (text: string, tags: ReadonlyMap<string, Tags>): string =>
  [text, ...labelsPart(tags)].join('\n');
