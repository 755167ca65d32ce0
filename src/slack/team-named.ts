// The team a label command gives a number or an agent to. A slash command's text carries a user group mention as typed
// (`@sales`, the manifest escapes nothing), so a handle is found among the workspace's user groups by its name.
import { type Actor, type Failure, fail, KIND } from '../ops/api.js';
import type { TeamTyped } from './command.js';
import type { SlackDeps } from './deps.js';
import { listGroups } from './groups.js';

/** The owner to set: a user group's id, null for nobody, absent to leave it; or why the team named is none (audited). */
export async function ownerOf(
  deps: SlackDeps,
  actor: Actor,
  typed: TeamTyped | null | undefined,
): Promise<{ owner?: string | null } | Failure> {
  if (typed === undefined) return {};
  if (typed === null || 'id' in typed) return { owner: typed?.id ?? null };
  const handle = `@${typed.handle}`;
  const groups = await listGroups(deps.slack.groups, actor.teamId).catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'could not list the user groups');
    return undefined;
  });
  const id = [...(groups ?? [])].find(([, name]) => name.toLowerCase() === handle.toLowerCase())?.[0];
  if (id) return { owner: id };
  const failure = groups
    ? fail('not_found', `No user group is called ${handle}: mention one, or give its id (S…).`)
    : fail('invalid', `Slack did not list the user groups to find ${handle}: give its id (S…) instead.`, {
        code: 'slack_unreadable',
      });
  await deps.ops.refuseInput(actor, KIND.label, failure);
  return failure;
}
