import { UnreadableInSlack } from '../ops/api.js';
import { slackErrorCode, type WebClient } from './clients.js';
import { slackRefusal } from './slack-errors.js';

/** An org-wide install's token needs `team_id`; a refusal the requester can act on travels with the error. */
export async function readGroupMembers(client: WebClient, usergroup: string, teamId?: string): Promise<string[]> {
  try {
    return (await client.usergroups.users.list({ usergroup, ...(teamId ? { team_id: teamId } : {}) })).users ?? [];
  } catch (error) {
    const sentence = slackRefusal(slackErrorCode(error));
    throw sentence ? new UnreadableInSlack(sentence, { cause: error }) : error;
  }
}

/** The workspace's user groups by id, with the name a person knows each by (`@handle`, else its name). */
export async function listGroups(client: WebClient, teamId?: string): Promise<Map<string, string>> {
  const listed = await client.usergroups.list({ ...(teamId ? { team_id: teamId } : {}) });
  return new Map(
    (listed.usergroups ?? []).flatMap((group) =>
      group.id ? [[group.id, group.handle ? `@${group.handle}` : (group.name ?? group.id)] as const] : [],
    ),
  );
}
