// Where an interaction's answer goes: a message through response_url, or a modal. When a modal can no longer be
// updated, the answer goes to the user privately instead.
import type { ModalView } from '@slack/types';
import type { ConfirmationPrompt, Done, Failure } from '../ops/api.js';
import type { WebClient } from './clients.js';
import type { Respond } from './respond.js';
import { followedBy, type SlackMessage } from './views/blocks.js';
import { confirmationMessage, confirmationModal } from './views/confirmation.js';
import { infoModal, loadingModal, withNote } from './views/modals.js';
import { doneMessage, doneModal, failureMessage, failureModal } from './views/results.js';

export type Answer =
  | { kind: 'message'; message: SlackMessage }
  | { kind: 'modal'; view: ModalView }
  | { kind: 'prompt'; prompt: ConfirmationPrompt }
  /** `after`: what the message shows after the outcome (a modal shows the outcome alone). */
  | { kind: 'done'; done: Done; after?: SlackMessage }
  | { kind: 'failure'; failure: Failure };

export interface Surface {
  show(answer: Answer): Promise<void>;
  /** Adds a message after the answer, leaving what the user already sees in place. */
  note(message: SlackMessage): Promise<void>;
}

/** What modal surfaces need: the client for views, the clock, and a private route for when a view cannot show. */
export interface ModalContext {
  client: WebClient;
  now: () => Date;
  fallback: Respond;
}

/** Ephemeral messages to the user, through the interaction's response_url (or its fallbacks). */
export function messageSurface(respond: Respond, now: () => Date, options: { replace?: boolean } = {}): Surface {
  return {
    show: async (answer) => {
      const message = asMessage(answer, now);
      if (!message) throw new Error(`a message surface cannot show a ${answer.kind}`);
      await respond(message, options);
    },
    note: (message) => respond(message),
  };
}

function asMessage(answer: Answer, now: () => Date): SlackMessage | undefined {
  switch (answer.kind) {
    case 'message':
      return answer.message;
    case 'prompt':
      return confirmationMessage(answer.prompt, now());
    case 'done':
      return answer.after ? followedBy(doneMessage(answer.done), answer.after) : doneMessage(answer.done);
    case 'failure':
      return failureMessage(answer.failure);
    case 'modal':
      return undefined;
  }
}

/** Opened at once with a loading view, because a trigger_id lasts three seconds and provider calls may take longer. */
export async function modalSurface(
  context: ModalContext,
  input: { triggerId: string; title: string; push?: boolean },
): Promise<Surface> {
  const view = loadingModal(input.title);
  const opening = { trigger_id: input.triggerId, view };
  const opened = await (input.push ? context.client.views.push(opening) : context.client.views.open(opening));
  const viewId = opened.view?.id;
  if (!viewId) throw new Error('Slack opened a view without an id');
  return updatingSurface(context, viewId, input.title);
}

/** An already open modal, replaced by each answer. */
export function updatingSurface(context: ModalContext, viewId: string, title: string): Surface {
  let shown: ModalView | undefined;
  const privately = (message: SlackMessage) => context.fallback(message);
  return {
    show: async (answer) => {
      const view = asModal(answer, title, context.now);
      try {
        await context.client.views.update({ view_id: viewId, view });
        shown = view;
      } catch (error) {
        const message = asMessage(answer, context.now);
        if (!message) throw error;
        shown = undefined;
        await privately(message);
      }
    },
    note: async (message) => {
      if (!shown) return privately(message);
      const view = withNote(shown, message);
      await context.client.views.update({ view_id: viewId, view }).then(
        () => {
          shown = view;
        },
        () => privately(message),
      );
    },
  };
}

/** The answer as a modal of this title: what a surface shows in one, and what a form's submission is answered with. */
export function asModal(answer: Answer, title: string, now: () => Date): ModalView {
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
