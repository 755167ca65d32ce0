import type { KnownBlock, ModalView, OptionGroup, PlainTextOption } from '@slack/types';
import { count, counted } from '../../counts.js';
import {
  type AgentChoices,
  type KindForm,
  NO_UNROUTE,
  type NumberChoices,
  type NumberSummary,
  REGIONS,
  type Role,
  type SearchPage,
} from '../../ops/api.js';
import type { CreatedAgent } from '../../provider/schemas.js';
import { ACTION, CALLBACK, INPUT } from '../ids.js';
import { bold, escapeMrkdwn, truncate } from '../mrkdwn.js';
import type { SearchPosition } from '../paging.js';
import { agentCreatedMessage } from './agents.js';
import {
  actions,
  context,
  externalSelect,
  LIMITS,
  modal,
  option,
  plainText,
  type SlackMessage,
  section,
  staticSelect,
  textMessage,
} from './blocks.js';
import { COMMON_LOCALES, OTHER_LOCALE } from './locales.js';
import { searchResultsBlocks } from './numbers.js';

/** The longest agent name the provider accepts (see the `agentName` schema). */
const AGENT_NAME_MAX = 100;

/** A read-only modal showing a message: results, failures, explanations. */
export function infoModal(title: string, shown: SlackMessage): ModalView {
  return modal({ title, callbackId: CALLBACK.info, close: 'Close', blocks: shown.blocks });
}

/** Opened at once, within the trigger's 3 seconds, and updated when the slow part is done. */
export function loadingModal(title: string): ModalView {
  return infoModal(title, textMessage(':hourglass_flowing_sand: Loading…'));
}

export function agentCreatedModal(agent: CreatedAgent): ModalView {
  return infoModal('Agent created', agentCreatedMessage(agent));
}

/** A kind of change's own form: a text field for each part of its command, submitted as the command's words. */
export function kindFormModal(form: KindForm, privateMetadata: string): ModalView {
  const blocks: KnownBlock[] = form.fields.map((field, index) => ({
    type: 'input',
    block_id: INPUT.kindField(index).block,
    label: plainText(field.label),
    element: {
      type: 'plain_text_input',
      action_id: INPUT.kindField(index).action,
      ...(field.placeholder ? { placeholder: plainText(field.placeholder) } : {}),
    },
  }));
  return modal({
    title: form.title,
    callbackId: CALLBACK.kindForm,
    close: 'Cancel',
    submit: 'Next',
    privateMetadata,
    blocks,
  });
}

/** Language is required; the field Slack marks "(optional)" is needed only when "Other locale" is picked. */
export function createAgentModal(input: { agentName?: string; language?: string; privateMetadata: string }): ModalView {
  const listed = COMMON_LOCALES.some((locale) => locale.tag === input.language);
  const other = input.language !== undefined && !listed ? input.language : undefined;
  const blocks: KnownBlock[] = [
    {
      type: 'input',
      block_id: INPUT.agentName.block,
      label: plainText('Name'),
      element: {
        type: 'plain_text_input',
        action_id: INPUT.agentName.action,
        max_length: AGENT_NAME_MAX,
        placeholder: plainText('e.g. Support bot'),
        ...(input.agentName ? { initial_value: input.agentName.slice(0, AGENT_NAME_MAX) } : {}),
      },
    },
    {
      type: 'input',
      block_id: INPUT.agentLanguage.block,
      label: plainText('Language'),
      element: staticSelect({
        actionId: INPUT.agentLanguage.action,
        placeholder: 'Pick a language',
        options: [
          ...COMMON_LOCALES.map((locale) => option(`${locale.name} · ${locale.tag}`, locale.tag)),
          option('Other locale: type it below', OTHER_LOCALE),
        ],
        initialValue: other ? OTHER_LOCALE : input.language,
      }),
    },
    {
      type: 'input',
      block_id: INPUT.agentLanguageOther.block,
      label: plainText('Other locale, e.g. sv-SE'),
      hint: plainText('Needed only when Language is “Other locale”: a language and a region, language-REGION.'),
      optional: true,
      element: {
        type: 'plain_text_input',
        action_id: INPUT.agentLanguageOther.action,
        max_length: 20,
        ...(other ? { initial_value: other.slice(0, 20) } : {}),
      },
    },
    context(':lock: The agent token is shown once, after creation: have somewhere safe ready to store it.'),
  ];
  return modal({
    title: 'Create AI agent',
    callbackId: CALLBACK.createAgent,
    submit: 'Create',
    close: 'Cancel',
    privateMetadata: input.privateMetadata,
    blocks,
  });
}

export function searchModal(input: {
  /** Where the search stands; none before a region is picked. */
  position?: SearchPosition;
  page?: SearchPage;
  role: Role;
  error?: string;
  loading?: boolean;
  privateMetadata: string;
}): ModalView {
  const picker = staticSelect({
    actionId: ACTION.searchRegion,
    placeholder: 'Pick a region',
    options: REGIONS.map((region) => option(`${region.name} (${region.code})`, region.code)),
    initialValue: input.position?.region,
  });
  const { page, position } = input;
  const results = (): KnownBlock[] => {
    if (input.loading) return [section(':hourglass_flowing_sand: Searching…')];
    if (input.error !== undefined) return [section(`:warning: ${escapeMrkdwn(input.error)}`)];
    if (page && position) return searchResultsBlocks({ page, position, role: input.role });
    return [section('Pick a region to see the numbers you can buy there.')];
  };
  return modal({
    title: 'Search numbers',
    callbackId: CALLBACK.searchNumbers,
    close: 'Done',
    privateMetadata: input.privateMetadata,
    blocks: [actions([picker]), ...results()],
  });
}

/** "+14155550123 · US → Support bot": the number, its region and where its calls go now. */
function numberOption(number: NumberSummary): PlainTextOption {
  const route = number.agentId ? `→ ${number.agentName ?? number.agentId}` : '(not routed)';
  return option(`${number.number}${number.region ? ` · ${number.region}` : ''} ${route}`, number.number);
}

/** "Support bot (ag_1)": the name is shortened rather than the id, so that similar names stay apart. */
function agentOption(agent: { id: string; name: string }): PlainTextOption {
  const id = ` (${agent.id})`;
  return option(`${truncate(agent.name, Math.max(1, LIMITS.optionText - id.length))}${id}`, agent.id);
}

/** "Not routed: the first 60 of 9,850: type digits to narrow": a group's label says when it is cut short. */
function groupLabel(name: string, shown: number, matching: number, narrow: string): string {
  return shown < matching
    ? `${name}: the first ${shown} of ${count(matching)}: ${narrow}`
    : `${name} (${count(matching)})`;
}

/** The options listener's answer for the number picker: numbers that route nowhere first. */
export function numberOptions(choices: NumberChoices): { option_groups: OptionGroup[] } | { options: [] } {
  const narrow = 'type digits to narrow';
  const groups = [
    { name: 'Not routed', shown: choices.unrouted, matching: choices.matching.unrouted },
    { name: 'Routed', shown: choices.routed, matching: choices.matching.routed },
  ].filter((group) => group.shown.length > 0);
  if (!groups.length) return { options: [] };
  return {
    option_groups: groups.map((group) => ({
      label: plainText(groupLabel(group.name, group.shown.length, group.matching, narrow), LIMITS.optionText),
      options: group.shown.map(numberOption),
    })),
  };
}

/** The options listener's answer for the agent picker. */
export function agentOptions(choices: AgentChoices): { option_groups: OptionGroup[] } | { options: [] } {
  if (!choices.agents.length) return { options: [] };
  const label = groupLabel('Agents', choices.agents.length, choices.matching, 'type to narrow');
  return {
    option_groups: [{ label: plainText(label, LIMITS.optionText), options: choices.agents.map(agentOption) }],
  };
}

export function mapModal(input: {
  /** How many numbers and agents the account has: a form with nothing to pick from explains instead. */
  numbers: number;
  agents: number;
  /** The number the form was opened for, picked already. */
  initial?: NumberSummary;
  /** The agent the form was opened for (the one the last number was routed to), picked already. */
  initialAgent?: { id: string; name: string };
  /** A number the form was opened for that is not one of the account's. */
  notOurs?: string;
  privateMetadata: string;
}): ModalView {
  if (!input.numbers || !input.agents) {
    const missing = !input.numbers
      ? 'Buy a number first: `/voice numbers search` finds one.'
      : 'Create an agent first: `/voice agents create`.';
    return infoModal('Map a number', textMessage(`:information_source: ${missing}`));
  }
  return modal({
    title: 'Map a number',
    callbackId: CALLBACK.mapNumber,
    submit: 'Map',
    close: 'Cancel',
    privateMetadata: input.privateMetadata,
    blocks: [
      ...(input.notOurs === undefined
        ? []
        : [section(`:warning: ${bold(input.notOurs)} is not one of your numbers: pick another, or buy it first.`)]),
      {
        type: 'input',
        block_id: INPUT.mapNumber.block,
        label: plainText('Number'),
        element: externalSelect({
          actionId: INPUT.mapNumber.action,
          placeholder: 'Type digits of one of your numbers',
          initialOption: input.initial && numberOption(input.initial),
        }),
        hint: plainText(`${counted(input.numbers, 'number')}; those that route nowhere come first.`),
      },
      {
        type: 'input',
        block_id: INPUT.mapAgent.block,
        label: plainText('Agent'),
        element: externalSelect({
          actionId: INPUT.mapAgent.action,
          placeholder: 'Type part of the agent’s name',
          initialOption: input.initialAgent && agentOption(input.initialAgent),
        }),
        hint: plainText(`${counted(input.agents, 'agent')}.`),
      },
      context(
        'A number that already routes to another agent asks you to confirm the re-route first. ' +
          escapeMrkdwn(NO_UNROUTE),
      ),
    ],
  });
}

/** A modal already shown, with a message added at its end (e.g. that the announcement did not go out). */
export function withNote(view: ModalView, note: SlackMessage): ModalView {
  return { ...view, blocks: [...view.blocks, ...note.blocks].slice(0, LIMITS.viewBlocks) };
}
