import type { ViewOutput } from '@slack/bolt';
import { type Actor, type Done, declaredCommands, didYouMean, unknownLocale } from '../../ops/api.js';
import { agentName, language } from '../../provider/schemas.js';
import type { Bought } from '../bought.js';
import { normalizeLocale, wordsOf } from '../command.js';
import { replyTo, type SlackDeps } from '../deps.js';
import {
  cancelAnswer,
  changeAnswer,
  confirmAnswer,
  createAgentAnswer,
  deliver,
  mapAnswer,
  modalContext,
} from '../flows.js';
import { CALLBACK, INPUT } from '../ids.js';
import { decodeMetadata } from '../metadata.js';
import { plainOfMrkdwn, truncate } from '../mrkdwn.js';
import type { ListenerRouter } from '../router.js';
import { refreshSearchForm } from '../search-again.js';
import { refreshSettingsSummary } from '../settings-summary.js';
import { messageSurface, updatingSurface } from '../surfaces.js';
import { agentReadyMessage } from '../views/agents.js';
import { OTHER_LOCALE } from '../views/locales.js';
import { loadingModal } from '../views/modals.js';
import { type Requester, requesterIn } from '../who-asked.js';
import { routeBoughtAnswer } from './route-bought.js';

type Input = { block: string; action: string };

function textOf(view: ViewOutput, input: Input): string {
  return view.state.values[input.block]?.[input.action]?.value?.trim() ?? '';
}

function selectedOf(view: ViewOutput, input: Input): string {
  return view.state.values[input.block]?.[input.action]?.selected_option?.value ?? '';
}

function actorOf(who: Requester, view: ViewOutput): Actor {
  const { channelId } = decodeMetadata(view.private_metadata);
  return { ...who, channelId, source: 'modal' };
}

/** The form's locale: the language picked, or the locale typed when "Other locale" is picked; else the input at fault. */
function chosenLocale(picked: string, typed: string): { locale: string } | { block: string; error: string } {
  const other = INPUT.agentLanguageOther.block;
  if (!picked) return { block: INPUT.agentLanguage.block, error: 'Pick a language, or “Other locale” to type one.' };
  if (picked !== OTHER_LOCALE) {
    if (!typed) return { locale: picked };
    return { block: other, error: 'Pick “Other locale” under Language to use the locale typed here, or clear it.' };
  }
  if (!typed) return { block: other, error: 'Type the locale, e.g. sv-SE: Language is “Other locale”.' };
  const locale = normalizeLocale(typed);
  if (!language.safeParse(locale).success) {
    const suggested = didYouMean(typed);
    if (suggested) return { block: other, error: `"${truncate(typed, 20)}" is not a locale tag. ${suggested}` };
    return { block: other, error: `"${truncate(typed, 20)}" is not a locale tag: use language-REGION, e.g. sv-SE.` };
  }
  const unknown = unknownLocale(locale);
  return unknown ? { block: other, error: unknown.message } : { locale };
}

/** Inline errors for the create form, from the same schemas and checks the operation applies. */
function createAgentErrors(name: string, chosen: ReturnType<typeof chosenLocale>): Record<string, string> {
  const errors: Record<string, string> = {};
  const nameCheck = agentName.safeParse(name);
  if (!nameCheck.success) errors[INPUT.agentName.block] = `Name ${nameCheck.error.issues[0]?.message ?? 'is invalid'}`;
  if ('error' in chosen) errors[chosen.block] = chosen.error;
  return errors;
}

/** The token modal closes for good, so the agent's name and id (never its token) are left where the form was opened. */
async function tellAgentReady(deps: SlackDeps, actor: Actor, done: Done): Promise<void> {
  if (!done.createdAgent) return;
  const to = { userId: actor.userId, channelId: actor.channelId };
  await replyTo(
    deps,
    to,
  )(agentReadyMessage(done.createdAgent)).catch((error: unknown) => {
    deps.logger.warn({ err: error, userId: actor.userId }, 'could not leave the new agent’s id');
  });
}

/** A new agent made for numbers just bought is given them at once: a map, or a plan to apply, privately. */
async function routeToNewAgent(deps: SlackDeps, actor: Actor, done: Done, what: Bought | undefined): Promise<void> {
  if (!what || !done.createdAgent) return;
  const surface = messageSurface(replyTo(deps, { userId: actor.userId, channelId: actor.channelId }), deps.now);
  await deliver(deps, surface, actor, await routeBoughtAnswer(deps, actor, what, done.createdAgent.id));
}

export function registerViews(router: ListenerRouter): void {
  router.view(CALLBACK.createAgent, async ({ ack, view, context }, deps) => {
    const name = textOf(view, INPUT.agentName);
    const chosen = chosenLocale(selectedOf(view, INPUT.agentLanguage), textOf(view, INPUT.agentLanguageOther));
    const errors = createAgentErrors(name, chosen);
    if (Object.keys(errors).length > 0 || !('locale' in chosen)) return ack({ response_action: 'errors', errors });
    const locale = chosen.locale;
    await ack({ response_action: 'update', view: loadingModal('Create an agent') });
    const actor = actorOf(requesterIn(context), view);
    const surface = updatingSurface(modalContext(deps, actor), view.id, 'Create an agent');
    const answer = await createAgentAnswer(deps, actor, { name, language: locale });
    await deliver(deps, surface, actor, answer);
    if (answer.kind !== 'done') return;
    await tellAgentReady(deps, actor, answer.done);
    await routeToNewAgent(deps, actor, answer.done, decodeMetadata(view.private_metadata).bought);
  });

  router.view(CALLBACK.mapNumber, async ({ ack, view, context }, deps) => {
    const phoneNumber = selectedOf(view, INPUT.mapNumber);
    const agentId = selectedOf(view, INPUT.mapAgent);
    const errors: Record<string, string> = {};
    if (!phoneNumber) errors[INPUT.mapNumber.block] = 'Pick a number.';
    if (!agentId) errors[INPUT.mapAgent.block] = 'Pick an agent.';
    if (Object.keys(errors).length > 0) return ack({ response_action: 'errors', errors });
    await ack({ response_action: 'update', view: loadingModal('Map a number') });
    const actor = actorOf(requesterIn(context), view);
    const surface = updatingSurface(modalContext(deps, actor), view.id, 'Map a number');
    await deliver(deps, surface, actor, await mapAnswer(deps, actor, { phoneNumber, agentId }));
  });

  // A kind's own form is its command asked for field by field: its fields' words are parsed as the command's.
  router.view(CALLBACK.kindForm, async ({ ack, view, context }, deps) => {
    const { kind } = decodeMetadata(view.private_metadata);
    const declared = declaredCommands().find((declaration) => declaration.kind === kind);
    const fields = declared?.form?.fields ?? [];
    const words = fields.flatMap((_, index) => wordsOf(textOf(view, INPUT.kindField(index))));
    const parsed = declared?.parse(words) ?? { error: 'This form is no longer offered: nothing was changed.' };
    if ('error' in parsed) {
      return ack({ response_action: 'errors', errors: { [INPUT.kindField(0).block]: plainOfMrkdwn(parsed.error) } });
    }
    const title = declared?.form?.title ?? '';
    await ack({ response_action: 'update', view: loadingModal(title) });
    const actor = actorOf(requesterIn(context), view);
    const surface = updatingSurface(modalContext(deps, actor), view.id, title);
    await deliver(deps, surface, actor, await changeAnswer(deps, actor, parsed.change));
  });

  router.view(CALLBACK.confirmChange, async ({ ack, view, context }, deps) => {
    const actor = actorOf(requesterIn(context), view);
    const typed = view.state.values[INPUT.typedConfirmation.block] ? textOf(view, INPUT.typedConfirmation) : undefined;
    const mistyped = typed === undefined ? undefined : await deps.ops.checkTyped(actor, view.private_metadata, typed);
    if (mistyped) {
      return ack({ response_action: 'errors', errors: { [INPUT.typedConfirmation.block]: mistyped.message } });
    }
    await ack({ response_action: 'update', view: loadingModal('Working…') });
    const surface = updatingSurface(modalContext(deps, actor), view.id, 'Confirm');
    const answer = await confirmAnswer(deps, actor, view.private_metadata, typed);
    await deliver(deps, surface, actor, answer);
    await refreshSearchForm(deps, actor, answer);
    await refreshSettingsSummary(deps, actor, answer);
  });

  // Closing a confirmation modal is its Cancel button.
  router.view({ callback_id: CALLBACK.confirmChange, type: 'view_closed' }, async ({ ack, view, context }, deps) => {
    await ack();
    await cancelAnswer(deps, actorOf(requesterIn(context), view), view.private_metadata);
  });
}
