// A person named as typed after `@` (the manifest leaves mentions unescaped): found in the workspace's member list by
// handle, display name or full name, in any case. Read only when someone asks about a person by name.
import { z } from 'zod';
import type { WebClient } from './clients.js';

const member = z.object({
  id: z.string(),
  name: z.string().optional(),
  deleted: z.boolean().optional(),
  real_name: z.string().optional(),
  profile: z.object({ display_name: z.string().optional(), real_name: z.string().optional() }).optional(),
});
const page = z.object({
  members: z.array(member).default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** Pages of members read at most, so that a name no one has never walks a huge org's whole list. */
const MAX_PAGES = 20;

/** The user ids of the workspace's active members called `name`. */
export async function peopleNamed(client: WebClient, name: string, teamId?: string): Promise<string[]> {
  const wanted = name.trim().toLowerCase();
  const found: string[] = [];
  let cursor: string | undefined;
  for (let read = 0; read < MAX_PAGES; read++) {
    const listed = page.parse(
      await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}), ...(teamId ? { team_id: teamId } : {}) }),
    );
    for (const person of listed.members) {
      const names = [person.name, person.real_name, person.profile?.display_name, person.profile?.real_name];
      if (!person.deleted && names.some((candidate) => candidate?.toLowerCase() === wanted)) found.push(person.id);
    }
    cursor = listed.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
  }
  return found;
}
