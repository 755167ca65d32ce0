import type { BlockAction, BlockElementAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { z } from 'zod';
import { type Actor, KIND, numberFilter } from '../../ops/api.js';
import { progressInRequest, settleDecision } from '../approvals.js';
import type { Bought } from '../bought.js';
import { replyTo, type SlackDeps } from '../deps.js';
import {
  agentsAnswer,
  auditAnswer,
  buyAnswer,
  cancelAnswer,
  confirmAnswer,
  deleteAgentAnswer,
  deliver,
  modalContext,
  numbersAnswer,
  openForm,
  releaseAnswer,
  searchAnswer,
} from '../flows.js';
import { refreshHome } from '../home.js';
import { ACTION, PAGE } from '../ids.js';
import { decodeMetadata, encodeMetadata } from '../metadata.js';
import {
  agentsPosition,
  auditPosition,
  decodeValue,
  FIRST_HOME_POSITION,
  homePosition,
  numbersPosition,
  type SearchPosition,
  searchFrom,
  searchPosition,
  searchRequestOf,
} from '../paging.js';
import type { Respond } from '../respond.js';
import type { ListenerRouter } from '../router.js';
import { buyPressed, withSearchAgain } from '../search-again.js';
import { refreshSettingsSummary } from '../settings-summary.js';
import { type Answer, messageSurface, modalSurface, type Surface, updatingSurface } from '../surfaces.js';
import { confirmationModal } from '../views/confirmation.js';
import { createAgentModal, searchModal } from '../views/modals.js';
import { workingMessage } from '../views/results.js';
import { type Requester, requesterIn } from '../who-asked.js';
import { openMapModal } from './modal-openers.js';

export type Body = BlockAction<BlockElementAction>;

export function actorOf(body: Body, who: Requester): Actor {
  return {
    ...who,
    channelId: channelOf(body),
    source: body.view?.type === 'home' ? 'home' : 'button',
    replyAddress: body.response_url,
  };
}

/** The value a button carries, or the option a select picked. */
export function chosenValue(body: Body): string {
  const [action] = body.actions;
  if (!action) return '';
  if ('value' in action && typeof action.value === 'string') return action.value;
  if ('selected_option' in action && action.selected_option) return action.selected_option.value ?? '';
  return '';
}

/** The channel of the message that held the button, or the one a modal was opened from. */
function channelOf(body: Body): string | undefined {
  return body.channel?.id ?? decodeMetadata(body.view?.private_metadata).channelId;
}

/** Private replies to whoever pressed the button: its response_url (buttons in messages carry one), or fallbacks. */
export function replyFor(deps: SlackDeps, body: Body): Respond {
  return replyTo(deps, { userId: body.user.id, channelId: channelOf(body), responseUrl: body.response_url });
}

/** A message's button answers in the conversation; a modal's or Home tab's in a modal, else privately. */
export async function surfaceFor(
  deps: SlackDeps,
  body: Body,
  actor: Actor,
  title: string,
  options: { replace?: boolean } = {},
): Promise<Surface> {
  if (!body.view) return messageSurface(replyFor(deps, body), deps.now, options);
  try {
    return await modalSurface(modalContext(deps, actor), {
      triggerId: body.trigger_id,
      title,
      push: body.view.type === 'modal',
    });
  } catch (error) {
    deps.logger.warn({ err: error }, 'Slack did not open a modal: answering in a message instead');
    return messageSurface(replyFor(deps, body), deps.now);
  }
}

/** The agent form, once the clicker may create one; `bought`: numbers to route to the new agent once it is made. */
export async function openCreateAgentForm(deps: SlackDeps, body: Body, actor: Actor, bought?: Bought): Promise<void> {
  const denied = await deps.ops.authorize(actor, KIND.createAgent);
  if (denied)
    return (await surfaceFor(deps, body, actor, 'Create an agent')).show({ kind: 'failure', failure: denied });
  const view = createAgentModal({ privateMetadata: encodeMetadata({ channelId: actor.channelId, bought }) });
  await openFormOver(deps, body, view, '/voice agents create NAME LANGUAGE');
}

type Flow = (deps: SlackDeps, actor: Actor, value: string) => Promise<Answer>;

/** Buy, pressed in a search result: the search is marked, to be shown again once the buy is done. */
const buyInSearch: Flow = (deps, actor, number) => {
  buyPressed(deps, actor.userId, number);
  return buyAnswer(deps, actor, number);
};

/**
 * Buttons that lead into a flow which answers with a confirmation or a failure. Buy sits in a search result, often
 * long: its confirmation replaces that message, so that Confirm and Cancel appear where Buy was pressed.
 */
const CONFIRMED_FLOWS: [actionId: string, title: string, flow: Flow, replace: boolean][] = [
  [ACTION.buyNumber, 'Buy a number', buyInSearch, true],
  [ACTION.releaseNumber, 'Release a number', releaseAnswer, false],
  [ACTION.deleteAgent, 'Delete an agent', deleteAgentAnswer, false],
];

export function registerActions(router: ListenerRouter): void {
  for (const [actionId, title, flow, replace] of CONFIRMED_FLOWS) {
    router.action<Body>(actionId, async ({ ack, body, context }, deps) => {
      await ack();
      const actor = actorOf(body, requesterIn(context));
      const surface = await surfaceFor(deps, body, actor, title, { replace });
      await deliver(deps, surface, actor, await flow(deps, actor, chosenValue(body)));
    });
  }

  // Confirm in a message replaces the message; the red Confirm in a confirmation modal replaces the modal.
  router.action<Body>(ACTION.confirmChange, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const surface =
      body.view?.type === 'modal'
        ? updatingSurface(modalContext(deps, actor), body.view.id, 'Confirm')
        : messageSurface(replyFor(deps, body), deps.now, { replace: true });
    await surface.show({ kind: 'message', message: workingMessage('Working on it…') });
    const answer = await confirmAnswer(deps, actor, chosenValue(body));
    await deliver(deps, surface, actor, await withSearchAgain(deps, actor, answer));
    await refreshSettingsSummary(deps, actor, answer);
  });

  // A change that asks for a typed confirmation opens it in a modal; one that cannot be confirmed says why.
  router.action<Body>(ACTION.confirmTyped, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const prompt = await deps.ops.pendingPrompt(actor, chosenValue(body));
    if (!prompt) {
      const surface = messageSurface(replyFor(deps, body), deps.now, { replace: true });
      return deliver(deps, surface, actor, await confirmAnswer(deps, actor, chosenValue(body)));
    }
    const view = confirmationModal(prompt, deps.now());
    await openFormOver(deps, body, view, 'the Release button again');
  });

  for (const [actionId, verdict] of [
    [ACTION.approveChange, 'approve'],
    [ACTION.rejectChange, 'reject'],
  ] as const) {
    router.action<Body>(actionId, async ({ ack, body, context }, deps) => {
      await ack();
      const progress = progressInRequest(deps, { channel: body.channel?.id, ts: body.message?.ts });
      const actor = actorOf(body, requesterIn(context));
      const decided = await deps.ops.decide(actor, chosenValue(body), verdict, progress.onBatchProgress);
      await progress.settled();
      await settleDecision(deps, replyFor(deps, body), decided);
    });
  }

  router.action<Body>(ACTION.cancelChange, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    await messageSurface(replyFor(deps, body), deps.now, { replace: true }).show(
      await cancelAnswer(deps, actor, chosenValue(body)),
    );
  });

  /** The map form, opened from a button once the clicker may map, with a number or an agent already picked. */
  const openMapFormFrom = async (
    deps: SlackDeps,
    body: Body,
    actor: Actor,
    picked: { initialNumber?: string; initialAgentId?: string },
  ) => {
    const denied = await deps.ops.authorize(actor, KIND.map);
    if (denied) return (await surfaceFor(deps, body, actor, 'Map a number')).show({ kind: 'failure', failure: denied });
    const inModal = body.view?.type === 'modal';
    await openMapModal(deps, actor, {
      triggerId: body.trigger_id,
      ...picked,
      metadata: encodeMetadata({ channelId: actor.channelId }),
      // From a map's result, the result becomes the next form: a launch of many numbers never outgrows Slack's stack
      // of three. From any other modal the form is pushed onto it.
      ...(inModal && picked.initialAgentId !== undefined ? { replaceViewId: body.view?.id } : { push: inModal }),
      reply: replyFor(deps, body),
    });
  };

  router.action<Body>(ACTION.mapNumber, async ({ ack, body, context }, deps) => {
    await ack();
    await openMapFormFrom(deps, body, actorOf(body, requesterIn(context)), {
      initialNumber: chosenValue(body) || undefined,
    });
  });

  router.action<Body>(ACTION.mapToAgent, async ({ ack, body, context }, deps) => {
    await ack();
    await openMapFormFrom(deps, body, actorOf(body, requesterIn(context)), {
      initialAgentId: chosenValue(body) || undefined,
    });
  });

  router.action<Body>(ACTION.createAgent, async ({ ack, body, context }, deps) => {
    await ack();
    await openCreateAgentForm(deps, body, actorOf(body, requesterIn(context)));
  });

  router.action<Body>(ACTION.searchNumbers, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const role = await deps.ops.roleOf(actor);
    const view = searchModal({ role, privateMetadata: encodeMetadata({ channelId: actor.channelId }) });
    await openFormOver(deps, body, view, '/voice numbers search REGION');
  });

  router.action<Body>(ACTION.searchRegion, async ({ ack, body, context }, deps) => {
    await ack();
    await showSearchPage(deps, body, actorOf(body, requesterIn(context)), searchFrom(chosenValue(body)));
  });

  registerPaging(router, PAGE.numbers, numbersPosition, numbersAnswer);
  registerPaging(router, PAGE.agents, agentsPosition, agentsAnswer);
  registerPaging(router, PAGE.audit, auditPosition, (deps, _actor, position) => auditAnswer(deps, position));
  registerPaging(router, PAGE.search, searchPosition, searchAnswer, showSearchPage);
  registerHomePaging(router, PAGE.homeAgents, 'agentsPage');
  registerHomePaging(router, PAGE.homeNumbers, 'numbersPage');

  // The Home tab's filter: its Numbers section starts again at page 1 with the numbers it picks.
  router.action<Body>(ACTION.homeNumbersFilter, async ({ ack, body, context }, deps) => {
    await ack();
    const filter = decodeValue(numberFilter, chosenValue(body));
    if (filter === undefined) return;
    const current = decodeValue(homePosition, body.view?.private_metadata) ?? FIRST_HOME_POSITION;
    await refreshHome(deps, actorOf(body, requesterIn(context)), { ...current, numbersPage: 1, numbersFilter: filter });
  });
}

/** The page replaces the message or modal in place, reusing the lists read for the first one. */
function registerPaging<T>(
  router: ListenerRouter,
  actionIds: { previous: string; next: string },
  schema: z.ZodType<T>,
  answer: (deps: SlackDeps, actor: Actor, position: T) => Promise<Answer>,
  /** How a modal holding the list (the search form) shows the page instead. */
  inModal?: (deps: SlackDeps, body: Body, actor: Actor, position: T) => Promise<void>,
): void {
  for (const actionId of [actionIds.previous, actionIds.next]) {
    router.action<Body>(actionId, async ({ ack, body, context }, deps) => {
      await ack();
      const position = decodeValue(schema, chosenValue(body));
      if (position === undefined) return;
      const actor = actorOf(body, requesterIn(context));
      if (inModal && body.view?.type === 'modal') return inModal(deps, body, actor, position);
      const shown = await answer(deps, actor, position);
      await messageSurface(replyFor(deps, body), deps.now, { replace: true }).show(shown);
    });
  }
}

/** Previous and Next of a Home tab section: the tab is published again at that page, the other section as it was. */
function registerHomePaging(
  router: ListenerRouter,
  actionIds: { previous: string; next: string },
  section: 'agentsPage' | 'numbersPage',
): void {
  for (const actionId of [actionIds.previous, actionIds.next]) {
    router.action<Body>(actionId, async ({ ack, body, context }, deps) => {
      await ack();
      const target = decodeValue(z.object({ page: z.number().int().min(1) }), chosenValue(body));
      if (target === undefined) return;
      const current = decodeValue(homePosition, body.view?.private_metadata) ?? FIRST_HOME_POSITION;
      await refreshHome(deps, actorOf(body, requesterIn(context)), { ...current, [section]: target.page });
    });
  }
}

/** Opens a form over whatever held the button: pushed onto a modal, else opened from a message or the Home tab. */
export function openFormOver(deps: SlackDeps, body: Body, view: ModalView, instead: string): Promise<void> {
  const push = body.view?.type === 'modal';
  return openForm(deps, { triggerId: body.trigger_id, view, push, instead, reply: replyFor(deps, body) });
}

/** Fills the search modal in place: loading first, then the page or what went wrong. */
async function showSearchPage(deps: SlackDeps, body: Body, actor: Actor, position: SearchPosition) {
  const view = body.view;
  if (!view) return;
  const surface = updatingSurface(modalContext(deps, actor), view.id, 'Search numbers');
  const role = await deps.ops.roleOf(actor);
  const base = { role, position, privateMetadata: view.private_metadata };
  deps.searches.set(actor.userId, { position, viewId: view.id, privateMetadata: view.private_metadata });
  await surface.show({ kind: 'modal', view: searchModal({ ...base, loading: true }) });
  const searched = await deps.ops.searchNumbers(searchRequestOf(position));
  const result = searched.ok ? { page: searched.page } : { error: searched.message };
  await surface.show({ kind: 'modal', view: searchModal({ ...base, ...result }) });
}
