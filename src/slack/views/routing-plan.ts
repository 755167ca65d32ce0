// Routing as text in Slack: the form that takes it (pasted, or a file), a plan's errors line by line, and the export.
import type { KnownBlock, ModalView } from '@slack/types';
import { count, counted } from '../../counts.js';
import type { CheckedLine, RoutingExport } from '../../ops/index.js';
import { CALLBACK, INPUT } from '../ids.js';
import { code, codeLines, escapeAndTruncate } from '../mrkdwn.js';
import {
  context,
  externalSelect,
  header,
  LIMITS,
  message,
  modal,
  plainText,
  type SlackMessage,
  section,
} from './blocks.js';

/** Errors listed in a message; the rest are counted. */
const ERRORS_SHOWN = 20;
const LINE_MAX = 80;
/** The export shown as text when it fits one code block; longer, it comes as a file. */
export const EXPORT_INLINE_MAX = LIMITS.sectionText - 200;

export function routingPlanModal(privateMetadata: string): ModalView {
  const text: KnownBlock = {
    type: 'input',
    block_id: INPUT.routingText.block,
    optional: true,
    label: plainText('Routing, one NUMBER AGENT_ID a line'),
    hint: plainText('Numbers as people write them (+49 30 1234567, 0049 30 1234567); # starts a comment.'),
    element: {
      type: 'plain_text_input',
      action_id: INPUT.routingText.action,
      multiline: true,
      max_length: LIMITS.sectionText,
      placeholder: plainText('+49 30 1234567 agt_berlin'),
    },
  };
  const file: KnownBlock = {
    type: 'input',
    block_id: INPUT.routingFile.block,
    optional: true,
    label: plainText('Or upload a text file (up to 1,000 lines)'),
    element: { type: 'file_input', action_id: INPUT.routingFile.action, filetypes: ['txt', 'text'], max_files: 1 },
  };
  return modal({
    title: 'Plan routing',
    callbackId: CALLBACK.routingPlan,
    submit: 'Plan',
    close: 'Cancel',
    privateMetadata,
    blocks: [
      section(
        'Paste the routing you want, or upload it. You will see the plan, and nothing changes until you apply it.',
      ),
      text,
      file,
      context(`\`/voice export\` gives today's routing in this format.`),
    ],
  });
}

const lineLabel = (line: CheckedLine) => `line ${line.line} ${code(line.text, LINE_MAX)}`;

/** A plan with errors cannot be applied: each error by its line, and what the rest would have done. */
export function planErrorsMessage(lines: CheckedLine[], errors: number): SlackMessage {
  const failed = lines.filter((line) => !line.ok);
  const shown = failed
    .slice(0, ERRORS_SHOWN)
    .map((line) => `• ${lineLabel(line)}: ${line.ok ? '' : escapeAndTruncate(line.error, 200)}`);
  const more = failed.length - shown.length;
  const effects = (effect: CheckedLine['effect']) => lines.filter((line) => line.effect === effect).length;
  const title = `The plan has ${counted(errors, 'error')}: nothing can be applied until every line is right.`;
  return message(title, [
    header('Plan not ready'),
    section(`:x: ${title}`),
    section(shown.join('\n')),
    ...(more ? [context(`And ${counted(more, 'more error')}.`)] : []),
    context(
      `The other lines: ${count(effects('route'))} to route, ${count(effects('re-route'))} to re-route, ` +
        `${count(effects('unchanged'))} already true. Fix the lines and run \`/voice plan\` again.`,
    ),
  ]);
}

/** A short export as text to copy; a longer one is posted as a file, and this says where. */
export function exportMessage(exported: RoutingExport, asFile: boolean): SlackMessage {
  const summary =
    `${counted(exported.routed, 'number')} routed, ${count(exported.unrouted)} routing nowhere. ` +
    'Edit it and paste it into `/voice plan`.';
  if (asFile) return message(summary, [section(`:page_facing_up: Today's routing is in the file above. ${summary}`)]);
  return message(summary, [section(summary), section(codeLines(exported.text))]);
}

/** The numbers a filter picks, all to one agent: the agent is picked here, and the plan follows. */
export function bulkMapModal(filterText: string, privateMetadata: string): ModalView {
  return modal({
    title: 'Map numbers',
    callbackId: CALLBACK.bulkMap,
    submit: 'Plan',
    close: 'Cancel',
    privateMetadata,
    blocks: [
      section(
        `Every number the Home tab shows (${filterText}) will be routed to the agent you pick. You will see the plan first.`,
      ),
      {
        type: 'input',
        block_id: INPUT.mapAgent.block,
        label: plainText('Agent'),
        element: externalSelect({ actionId: INPUT.mapAgent.action, placeholder: 'Type part of the agent’s name' }),
      },
    ],
  });
}
