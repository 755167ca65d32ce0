// The settings summary a form was opened from is replaced, once the change is made, by the settings now in force,
// through the response_url of the button that opened the form (failing it, the summary is left as it was).
import { type Actor, KIND } from '../ops/api.js';
import type { SlackDeps } from './deps.js';
import { postToResponseUrl } from './respond.js';
import type { Answer } from './surfaces.js';
import { settingsMessage } from './views/settings.js';

export function settingsFormOpened(deps: SlackDeps, userId: string, responseUrl: string | undefined): void {
  // A form opened elsewhere (the Home tab) has no summary to redraw: an older one is not this change's.
  if (responseUrl) deps.settingsShown.set(userId, responseUrl);
  else deps.settingsShown.delete(userId);
}

export async function refreshSettingsSummary(deps: SlackDeps, actor: Actor, answer: Answer): Promise<void> {
  if (answer.kind !== 'done' || answer.done.change.action !== KIND.settings) return;
  const responseUrl = deps.settingsShown.get(actor.userId);
  if (!responseUrl) return;
  deps.settingsShown.delete(actor.userId);
  const message = settingsMessage(await deps.ops.settings({ fresh: true }));
  await postToResponseUrl(responseUrl, { response_type: 'ephemeral', replace_original: true, ...message }).catch(
    (error: unknown) =>
      deps.logger.warn({ err: error, userId: actor.userId }, 'could not bring the settings summary up to date'),
  );
}
