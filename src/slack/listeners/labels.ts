// A card's Labels button: the form of a number's or an agent's labels and owner, its owner picker, and its
// submission, which changes at once what the person edited against what the card showed.
import type { ViewOutput } from '@slack/bolt';
import { type Actor, KIND } from '../../ops/api.js';
import { labelsTyped, notALabel } from '../../settings-schema.js';
import { deliver, labelsAnswer, modalContext } from '../flows.js';
import { ACTION, CALLBACK, INPUT } from '../ids.js';
import { decodeValue } from '../paging.js';
import type { ListenerRouter } from '../router.js';
import { updatingSurface } from '../surfaces.js';
import { labelsModal, NOBODY, ownerOptions, type ShownTags, shownTags } from '../views/labels.js';
import { loadingModal } from '../views/modals.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, chosenValue, openFormOver, surfaceFor } from './actions.js';
import { groupNames, groupsMatching } from './settings.js';

const INSTEAD = '/voice label +NUMBER +LABEL -LABEL';

export function registerLabels(router: ListenerRouter): void {
  router.action<Body>(ACTION.editLabels, async ({ ack, body, context }, deps) => {
    await ack();
    const actor = actorOf(body, requesterIn(context));
    const shown = decodeValue(shownTags, chosenValue(body));
    if (!shown) return;
    const denied = await deps.ops.authorize(actor, KIND.label);
    if (denied) return (await surfaceFor(deps, body, actor, 'Labels')).show({ kind: 'failure', failure: denied });
    const names = await groupNames(deps, actor.teamId);
    await openFormOver(deps, body, labelsModal({ ...shown, channelId: actor.channelId }, names), INSTEAD);
  });

  router.options(INPUT.owner.action, async ({ ack, body }, deps) => {
    await ack({ options: ownerOptions(await groupsMatching(deps, body.user.team_id, body.value)) });
  });

  router.view(CALLBACK.labels, async ({ ack, view, context }, deps) => {
    const shown = decodeValue(shownTags, view.private_metadata);
    if (!shown) return ack({ response_action: 'errors', errors: { [INPUT.labels.block]: 'Open the card again.' } });
    const read = readLabelsForm(view, shown);
    if ('errors' in read) return ack({ response_action: 'errors', errors: read.errors });
    await ack({ response_action: 'update', view: loadingModal('Labels and owner') });
    const actor: Actor = { ...requesterIn(context), channelId: shown.channelId, source: 'modal' };
    const surface = updatingSurface(modalContext(deps, actor), view.id, 'Labels and owner');
    await deliver(deps, surface, actor, await labelsAnswer(deps, actor, { target: shown.subject, ...read.changes }));
  });
}

interface LabelsEdit {
  add: string[];
  remove: string[];
  owner?: string | null;
}

/** What the person changed in the form against what it showed, or what is wrong with it. */
function readLabelsForm(
  view: ViewOutput,
  shown: ShownTags,
): { changes: LabelsEdit } | { errors: Record<string, string> } {
  const typed = view.state.values[INPUT.labels.block]?.[INPUT.labels.action]?.value ?? '';
  const read = labelsTyped(typed);
  if ('wrong' in read) return { errors: { [INPUT.labels.block]: notALabel(read.wrong) } };
  const { labels } = read;
  const picked = view.state.values[INPUT.owner.block]?.[INPUT.owner.action]?.selected_option?.value;
  const owner = picked === undefined ? shown.owner : picked === NOBODY ? undefined : picked;
  const changes: LabelsEdit = {
    add: labels.filter((label) => !shown.labels.includes(label)),
    remove: shown.labels.filter((label) => !labels.includes(label)),
    ...(owner !== shown.owner ? { owner: owner ?? null } : {}),
  };
  if (changes.add.length + changes.remove.length === 0 && changes.owner === undefined) {
    return { errors: { [INPUT.labels.block]: 'Nothing to change: edit the labels, or pick another owner.' } };
  }
  return { changes };
}
