// Labels and an owning team as a card shows them, the card's Labels button, and the form it opens, which keeps what
// the card showed so that its submission changes only what the person edited.
import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { z } from 'zod';
import { ACTION, CALLBACK, INPUT } from '../ids.js';
import { bold, code, mentionMember } from '../mrkdwn.js';
import { encodeValue } from '../paging.js';
import { button, context, externalSelect, modal, option, plainText } from './blocks.js';
import { agentLabel } from './text.js';

/** A number's or an agent's labels and owner as a card showed them: what the form starts from and is compared to. */
export const shownTags = z.object({
  subject: z.string(),
  /** An agent's name, for the form to say which agent it is. */
  name: z.string().optional(),
  labels: z.array(z.string()),
  owner: z.string().optional(),
  channelId: z.string().optional(),
});
export type ShownTags = z.infer<typeof shownTags>;

/** The owner picker's option for nobody: no user group id looks like it. */
export const NOBODY = 'nobody';

/** "Labels: `team:sales`, `vip` · Owner: @sales", or none and nobody. */
export function tagsLine(tags: { labels: readonly string[]; owner?: string }): string {
  const labels = tags.labels.length ? tags.labels.map((label) => code(label)).join(', ') : 'none';
  return `Labels: ${labels} · Owner: ${tags.owner ? mentionMember(tags.owner) : 'nobody'}`;
}

export const labelsButton = (shown: Omit<ShownTags, 'channelId'>) =>
  button({ text: 'Labels', actionId: ACTION.editLabels, value: encodeValue(shown) });

/** The owner picker's options: nobody first, then the user groups Slack lists. */
export const ownerOptions = (groups: [string, string][]): PlainTextOption[] => [
  option('Nobody', NOBODY),
  ...groups.map(([id, name]) => option(name, id)),
];

/** `names`: the user groups' names, for the owner chosen now. */
export function labelsModal(shown: ShownTags, names: ReadonlyMap<string, string>): ModalView {
  const what = shown.subject.startsWith('+')
    ? bold(shown.subject)
    : agentLabel({ id: shown.subject, name: shown.name });
  const owner = shown.owner ? option(names.get(shown.owner) ?? shown.owner, shown.owner) : option('Nobody', NOBODY);
  const blocks: KnownBlock[] = [
    context(`Labels and owner of ${what}. A team’s numbers and agents are changed by its members and admins.`),
    {
      type: 'input',
      block_id: INPUT.labels.block,
      label: plainText('Labels'),
      optional: true,
      element: {
        type: 'plain_text_input',
        action_id: INPUT.labels.action,
        ...(shown.labels.length ? { initial_value: shown.labels.join(' ') } : {}),
      },
      hint: plainText('Separated by spaces or commas: lowercase letters, digits and : . _ / -, up to 50 each.'),
    },
    {
      type: 'input',
      block_id: INPUT.owner.block,
      label: plainText('Owner'),
      element: externalSelect({
        actionId: INPUT.owner.action,
        placeholder: 'Type a group’s name',
        initialOption: owner,
      }),
    },
  ];
  return modal({
    title: 'Labels and owner',
    callbackId: CALLBACK.labels,
    close: 'Cancel',
    submit: 'Save',
    privateMetadata: JSON.stringify(shown),
    blocks,
  });
}
