// A number's or an agent's labels and owner on a list's row, and a filter by them said in the list's title.
import type { TagFilter } from '../../ops/api.js';
import type { Tags } from '../../store/tags.js';
import { code, mentionMember } from '../mrkdwn.js';

const labelsText = (labels: readonly string[]) => labels.map((label) => code(label)).join(' ');

/** "`de` `team:sales` · owned by @sales", or '' for what has neither. */
export function tagsText(tags: Tags | undefined): string {
  return [
    ...(tags?.labels.length ? [labelsText(tags.labels)] : []),
    ...(tags?.owner ? [`owned by ${mentionMember(tags.owner)}`] : []),
  ].join(' · ');
}

/** "labelled `de`, not labelled `test`, owned by @sales": what a filter by tags keeps, in escaped mrkdwn. */
export function describeTagFilter(filter: TagFilter): string[] {
  return [
    ...(filter.labels?.length ? [`labelled ${labelsText(filter.labels)}`] : []),
    ...(filter.without?.length ? [`not labelled ${labelsText(filter.without)}`] : []),
    ...(filter.owner ? [`owned by ${mentionMember(filter.owner)}`] : []),
    ...(filter.unowned ? ['owned by nobody'] : []),
  ];
}
