// Routing as text in Slack: the form that takes it (pasted, or a file), a plan's errors line by line, and the export.
import type { KnownBlock, ModalView } from '@slack/types';
import { count, counted } from '../../counts.js';
import type { CheckedLine, RoutingExport } from '../../ops/api.js';
import { CALLBACK, INPUT } from '../ids.js';
import { bold, code, codeLines, escapeAndTruncate, escapeMrkdwn } from '../mrkdwn.js';
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
  textMessage,
} from './blocks.js';
import { infoModal } from './modals.js';
import { scopeLead } from './scope.js';

/** Errors listed in a message; the rest are counted. */
const ERRORS_SHOWN = 20;
/** Problems listed in the form: a pasted text of 3,000 characters holds about 100 lines. */
const PROBLEMS_SHOWN = 100;
const LINE_MAX = 80;
/** The export shown as text when it fits one code block; longer, it comes as a file. */
export const EXPORT_INLINE_MAX = LIMITS.sectionText - 200;

/** Shown above the text, so that every line at fault is fixed in one round. */
export interface PlanProblems {
  /** The text as pasted, put back in the box (a file is fixed where it is kept). */
  text: string;
  problems: string[];
  fromFile: boolean;
  /** Nothing in the text is at fault: the check could not be made just now (the provider, Slack's file). */
  retry?: boolean;
}

export function routingPlanModal(privateMetadata: string, shown?: PlanProblems): ModalView {
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
      ...(shown?.text ? { initial_value: shown.text } : {}),
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
      ...(shown
        ? problemBlocks(shown)
        : [
            section(
              'Paste the routing you want, or upload it. You will see the plan, and nothing changes until you apply it.',
            ),
          ]),
      text,
      file,
      context(`\`/voice export\` gives today's routing in this format.`),
    ],
  });
}

/** The Home tab's export: today's routing, or, with a time typed, the routing as it was then. */
export function exportModal(privateMetadata: string): ModalView {
  const asOf: KnownBlock = {
    type: 'input',
    block_id: INPUT.exportAsOf.block,
    optional: true,
    label: plainText('As of (empty for today)'),
    hint: plainText(
      'A time past, as /voice export as of takes it: 10 min ago, yesterday 09:00, last tuesday 9:00, 2026-11-27. ' +
        'Read in your Slack time zone (in UTC when Slack gives none).',
    ),
    element: {
      type: 'plain_text_input',
      action_id: INPUT.exportAsOf.action,
      max_length: 100,
      placeholder: plainText('yesterday 09:00'),
    },
  };
  return modal({
    title: 'Export routing',
    callbackId: CALLBACK.exportRouting,
    submit: 'Export',
    close: 'Cancel',
    privateMetadata,
    blocks: [asOf],
  });
}

/** Sections of problems, as many lines in each as Slack takes, then how many more there are. */
function problemBlocks({ problems, fromFile, retry }: PlanProblems): KnownBlock[] {
  if (retry) {
    return [section(`:warning: The routing could not be checked just now: press Plan again. ${problems.join(' ')}`)];
  }
  const intro =
    problems.length === 1
      ? ':x: Fix this, then press Plan again.'
      : `:x: Fix these ${problems.length} problems, then press Plan again.`;
  const where = fromFile
    ? 'Fix the file and upload it again, or paste its text below.'
    : 'The text is below, as you sent it.';
  const sections: string[] = [];
  let shown = 0;
  for (const problem of problems.slice(0, PROBLEMS_SHOWN)) {
    const last = sections.length - 1;
    const joined = last >= 0 ? `${sections[last]}\n${problem}` : undefined;
    if (joined && joined.length <= LIMITS.sectionText) sections[last] = joined;
    else sections.push(problem);
    shown++;
  }
  const more = problems.length - shown;
  return [
    section(`${intro} ${where}`),
    ...sections.map((text) => section(text)),
    ...(more ? [context(`And ${counted(more, 'more problem')}.`)] : []),
  ];
}

const lineLabel = (line: CheckedLine) => `line ${line.line} ${code(line.text, LINE_MAX)}`;

/** Each line at fault, by its line: for the form, or a message when the form is gone. */
export function planErrorLines(lines: CheckedLine[]): string[] {
  return lines.flatMap((line) => (line.ok ? [] : [`• ${lineLabel(line)}: ${escapeAndTruncate(line.error, 200)}`]));
}

/** A plan with errors whose form was closed before they could be shown in it: each error by its line. */
export function planErrorsMessage(errors: string[]): SlackMessage {
  const title = `The plan has ${counted(errors.length, 'error')}: nothing can be applied until every line is right.`;
  const shown = errors.slice(0, ERRORS_SHOWN);
  const more = errors.length - shown.length;
  return message(title, [
    header('Plan not ready'),
    section(`:x: ${title}`),
    section(shown.join('\n')),
    ...(more ? [context(`And ${counted(more, 'more error')}.`)] : []),
    context('Fix the lines and run `/voice plan` again.'),
  ]);
}

/** What an export is, in a sentence, and what a plan of it would do: today's routing, or one as of a moment past. */
function exportWords(exported: RoutingExport, mayPlan: boolean): { which: string; summary: string; notes: string[] } {
  const routed = counted(exported.routed, 'number');
  if (!('asOf' in exported)) {
    const plan = mayPlan
      ? 'Edit it and paste it into `/voice plan`.'
      : 'An operator can paste an edited copy into `/voice plan` to change the routing.';
    return {
      which: "Today's routing",
      summary: `${routed} routed, ${count(exported.unrouted)} routing nowhere. ${plan}`,
      notes: [],
    };
  }
  const asOf = escapeMrkdwn(exported.asOf);
  const plan = mayPlan
    ? 'Paste it into `/voice plan` to route them back.'
    : 'An operator can paste it into `/voice plan` to route them back.';
  return {
    which: `The routing as of ${asOf}`,
    summary: `${routed} routed as of ${asOf}, rebuilt from the verified audit log. ${plan}`,
    // A plan adds and moves routes, and the provider has no unroute.
    notes: ['Numbers that routed nowhere then keep the route they have now: a plan never removes one.'],
  };
}

/** A short export as text to copy; a longer one is posted as a file, and this says where. */
export function exportMessage(exported: RoutingExport, shown: { asFile: boolean; mayPlan: boolean }): SlackMessage {
  const { which, summary, notes } = exportWords(exported, shown.mayPlan);
  const lead = scopeLead(exported.scope, 'numbers');
  const shownAs = shown.asFile
    ? [section(`${lead}:page_facing_up: ${which} is in the file above. ${summary}`)]
    : [section(`${lead}${summary}`), section(codeLines(exported.text))];
  return message(summary, [...shownAs, ...notes.map((note) => context(note))]);
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

/** Numbers one form routes: as many as one options answer lists; more at once are a filter's (`/voice map`). */
export const ROUTE_FORM_MAX = 100;

/** Several numbers for one agent, picked at once (those that route nowhere first), and then one plan. */
export function routeNumbersModal(
  agent: { id: string; name: string },
  numbers: number,
  privateMetadata: string,
): ModalView {
  if (!numbers) {
    return infoModal(
      'Route numbers',
      textMessage(':information_source: Buy a number first: `/voice numbers search` finds one.'),
    );
  }
  return modal({
    title: 'Route numbers',
    callbackId: CALLBACK.routeNumbers,
    submit: 'Plan',
    close: 'Cancel',
    privateMetadata,
    blocks: [
      section(`Pick the numbers to route to ${bold(agent.name)} (${code(agent.id)}). You will see the plan first.`),
      {
        type: 'input',
        block_id: INPUT.routeNumbers.block,
        label: plainText('Numbers'),
        element: {
          type: 'multi_external_select',
          action_id: INPUT.routeNumbers.action,
          placeholder: plainText('Type digits of your numbers', LIMITS.optionText),
          min_query_length: 0,
          max_selected_items: ROUTE_FORM_MAX,
        },
        hint: plainText(
          `${counted(numbers, 'number')}; those that route nowhere come first. More than ${ROUTE_FORM_MAX} at once: ` +
            '/voice map FILTER to AGENT_ID.',
        ),
      },
    ],
  });
}
