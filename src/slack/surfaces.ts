// Where an interaction's answer goes: an ephemeral message through response_url, or a modal. The flows
// produce an Answer; a surface renders it in its own Block Kit form.
import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { Done } from '../ops/carry-out.js';
import type { ConfirmationPrompt } from '../ops/changes.js';
import type { Failure } from '../ops/types.js';
import type { Respond } from './respond.js';
import type { SlackMessage } from './views/blocks.js';
import { confirmationMessage, confirmationModal } from './views/confirmation.js';
import { infoModal, loadingModal } from './views/modals.js';
import { doneMessage, doneModal, failureMessage, failureModal } from './views/results.js';

export type Answer =
  | { kind: 'message'; message: SlackMessage }
  | { kind: 'modal'; view: ModalView }
  | { kind: 'prompt'; prompt: ConfirmationPrompt }
  | { kind: 'done'; done: Done }
  | { kind: 'failure'; failure: Failure };

export interface Surface {
  show(answer: Answer): Promise<void>;
}

type Client = App['client'];

/** Ephemeral messages to the user, through the interaction's response_url. */
export function messageSurface(respond: Respond, now: () => Date, options: { replace?: boolean } = {}): Surface {
  return {
    show: async (answer) => {
      const message = asMessage(answer, now);
      if (!message) throw new Error(`a message surface cannot show a ${answer.kind}`);
      await respond({ response_type: 'ephemeral', replace_original: options.replace ?? false, ...message });
    },
  };
}

function asMessage(answer: Answer, now: () => Date): SlackMessage | undefined {
  switch (answer.kind) {
    case 'message':
      return answer.message;
    case 'prompt':
      return confirmationMessage(answer.prompt, now());
    case 'done':
      return doneMessage(answer.done);
    case 'failure':
      return failureMessage(answer.failure);
    case 'modal':
      return undefined;
  }
}

/**
 * A modal opened (or pushed on top of one) at once with a loading view, because a trigger_id lasts
 * three seconds and provider calls may take longer; the answer then replaces the loading view.
 */
export async function modalSurface(
  client: Client,
  input: { triggerId: string; title: string; push?: boolean; now: () => Date },
): Promise<Surface> {
  const view = loadingModal(input.title);
  const opened = input.push
    ? await client.views.push({ trigger_id: input.triggerId, view })
    : await client.views.open({ trigger_id: input.triggerId, view });
  const viewId = opened.view?.id;
  if (!viewId) throw new Error('Slack opened a view without an id');
  return updatingSurface(client, viewId, input.title, input.now);
}

/** An already open modal, replaced by each answer. */
export function updatingSurface(client: Client, viewId: string, title: string, now: () => Date): Surface {
  return {
    show: async (answer) => {
      await client.views.update({ view_id: viewId, view: asModal(answer, title, now) });
    },
  };
}

function asModal(answer: Answer, title: string, now: () => Date): ModalView {
  switch (answer.kind) {
    case 'message':
      return infoModal(title, answer.message);
    case 'modal':
      return answer.view;
    case 'prompt':
      return confirmationModal(answer.prompt, now());
    case 'done':
      return doneModal(answer.done);
    case 'failure':
      return failureModal(title, answer.failure);
  }
}
