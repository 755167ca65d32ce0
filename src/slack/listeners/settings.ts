// `/voice settings`, `/voice access`, the forms' user-group pickers, and a form's submission, which becomes a change
// to confirm like any other.
import { type Actor, KIND, roleIncludes } from '../../ops/api.js';
import type { SlackDeps } from '../deps.js';
import { peopleNamed } from '../find-person.js';
import { deliver, modalContext } from '../flows.js';
import { listGroups } from '../groups.js';
import { CALLBACK, SETTINGS } from '../ids.js';
import { decodeMetadata, encodeMetadata } from '../metadata.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import type { ListenerRouter } from '../router.js';
import { readSettingsForm } from '../settings-form.js';
import { settingsFormOpened } from '../settings-summary.js';
import { type Answer, updatingSurface } from '../surfaces.js';
import { accessMessage, personAccessMessage } from '../views/access.js';
import { option, textMessage } from '../views/blocks.js';
import { loadingModal } from '../views/modals.js';
import { SETTINGS_GROUPS, type SettingsGroup, settingsMessage, settingsModal } from '../views/settings.js';
import { requesterIn } from '../who-asked.js';
import { actorOf, type Body, openFormOver, surfaceFor } from './actions.js';

/** The user groups' names, for the pickers; without them (Slack would not list them) a group shows by its id. */
export async function groupNames(deps: SlackDeps, teamId: string | undefined): Promise<Map<string, string>> {
  return listGroups(deps.slack.groups, teamId).catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'could not list the user groups');
    return new Map<string, string>();
  });
}

/** The user groups whose name holds what was typed in a picker (or whose id it is), as many as a picker shows. */
export async function groupsMatching(
  deps: SlackDeps,
  teamId: string | undefined,
  typed: string,
): Promise<[string, string][]> {
  const lowered = typed.trim().toLowerCase();
  const names = await groupNames(deps, teamId);
  return [...names]
    .filter(([id, name]) => !lowered || name.toLowerCase().includes(lowered) || id.toLowerCase() === lowered)
    .slice(0, 100);
}

/** `/voice settings`: the settings in force, with a form per group, for an admin; anyone else is refused (audited). */
export async function settingsAnswer(deps: SlackDeps, actor: Actor): Promise<Answer> {
  const denied = await deps.ops.authorize(actor, KIND.settings);
  if (denied) return { kind: 'failure', failure: denied };
  return { kind: 'message', message: settingsMessage(await deps.ops.settings()) };
}

/** `/voice access [@person]`: every role's holders through their user groups, or one person's role and its source. */
export async function accessAnswer(
  deps: SlackDeps,
  actor: Actor,
  person?: { id: string } | { name: string },
): Promise<Answer> {
  if (person) {
    const ids =
      'id' in person
        ? [person.id]
        : await peopleNamed(deps.slack.groups, person.name, actor.teamId).catch((error: unknown) => {
            deps.logger.warn({ err: error }, 'could not list the workspace’s members');
            return undefined;
          });
    if (!ids) {
      const sentence =
        'Slack would not list the workspace’s members just now: name the person by user id, ' +
        '`/voice access U0123ABC`, or try again in a minute.';
      return { kind: 'message', message: textMessage(sentence) };
    }
    const [only] = ids;
    if (!only || ids.length > 1) {
      const said = 'name' in person ? escapeMrkdwn(person.name) : '';
      const why = only ? `${ids.length} people are called @${said}` : `No one in the workspace is called @${said}`;
      return { kind: 'message', message: textMessage(`${why}: name them by user id, \`/voice access U0123ABC\`.`) };
    }
    const access = await deps.ops.accessOf({ userId: only, teamId: actor.teamId });
    return { kind: 'message', message: personAccessMessage(access) };
  }
  const [overview, role] = await Promise.all([deps.ops.accessOverview(actor.teamId), deps.ops.roleOf(actor)]);
  return { kind: 'message', message: accessMessage(overview, roleIncludes(role, 'admin')) };
}

export function registerSettings(router: ListenerRouter): void {
  for (const group of SETTINGS_GROUPS) {
    router.action<Body>(SETTINGS.open[group], async ({ ack, body, context }, deps) => {
      await ack();
      const actor = actorOf(body, requesterIn(context));
      const denied = await deps.ops.authorize(actor, KIND.settings);
      if (denied) return (await surfaceFor(deps, body, actor, 'Settings')).show({ kind: 'failure', failure: denied });
      settingsFormOpened(deps, actor.userId, body.response_url);
      await openFormOver(deps, body, await settingsForm(deps, actor, group), '/voice settings');
    });
  }

  router.options(SETTINGS.groupPick, async ({ ack, body }, deps) => {
    const matching = await groupsMatching(deps, body.user.team_id, body.value);
    await ack({ options: matching.map(([id, name]) => option(name, id)) });
  });

  router.view(CALLBACK.settings, async ({ ack, view, context }, deps) => {
    const read = readSettingsForm(view.state.values);
    if (Object.keys(read.errors).length > 0) return ack({ response_action: 'errors', errors: read.errors });
    await ack({ response_action: 'update', view: loadingModal('Settings') });
    const { channelId } = decodeMetadata(view.private_metadata);
    const actor: Actor = { ...requesterIn(context), channelId, source: 'modal' };
    const surface = updatingSurface(modalContext(deps, actor), view.id, 'Settings');
    const asked = await deps.ops.requestSettingsChange(actor, read.proposed);
    await deliver(
      deps,
      surface,
      actor,
      asked.ok ? { kind: 'prompt', prompt: asked.prompt } : { kind: 'failure', failure: asked },
    );
  });
}

async function settingsForm(deps: SlackDeps, actor: Actor, group: SettingsGroup) {
  const [view, names] = await Promise.all([deps.ops.settings(), groupNames(deps, actor.teamId)]);
  return settingsModal(group, view, names, encodeMetadata({ channelId: actor.channelId }));
}
