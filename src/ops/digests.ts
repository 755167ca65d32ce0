// Quiet subscriptions: each change they pick is kept for the channel's digest, and one digest a day is posted there,
// at the first background pass from 09:00 UTC on, by the one replica holding the background lease.
import { z } from 'zod';
import { AUDIT_SOURCES } from '../store/audit.js';
import type { Tags } from '../store/tags.js';
import type { DigestEntry } from './announcements.js';
import type { OpsDeps } from './deps.js';
import { announcedChange } from './kinds/index.js';
import { channelsPicking, type Subscribable } from './subscriptions.js';
import { atomically } from './transactions.js';

/** The hour of the day, UTC, from which a day's digest is due. */
const DIGEST_HOUR_UTC = 9;

/**
 * Keeps a change for the digest of each quiet subscription that picks some of its parts (`partsTagged`: each part's
 * tags before it), as `entryOf` writes it for the parts picked; a failure is logged, never the change's.
 */
export async function keepForDigests(
  deps: OpsDeps,
  kind: Subscribable | undefined,
  partsTagged: readonly (readonly Tags[])[],
  entryOf: (picked: number[]) => DigestEntry,
): Promise<void> {
  if (kind === undefined) return;
  try {
    const { quiet } = channelsPicking(await deps.settings.current(), kind, partsTagged);
    const at = deps.now();
    for (const [channel, picked] of quiet) await deps.store.digests.add(channel, entryOf(picked), at);
  } catch (error) {
    deps.logger.warn({ err: error }, 'could not keep a change for a digest');
  }
}

/** The latest 09:00 UTC at or before `now`: a channel last posted before it is due its digest. */
function dueSince(now: Date): Date {
  const due = new Date(now);
  due.setUTCHours(DIGEST_HOUR_UTC, 0, 0, 0);
  if (due > now) due.setUTCDate(due.getUTCDate() - 1);
  return due;
}

/** A kept line as it reads back: one written by another version that no longer reads is skipped. */
const named = z.object({ id: z.string(), name: z.string() });
const digestEntry = z.union([
  z.object({ actorId: z.string(), change: announcedChange }),
  z.object({ outside: announcedChange }),
  z.object({
    batch: z.object({
      actor: z.looseObject({ userId: z.string(), source: z.enum(AUDIT_SOURCES) }),
      batchId: z.string(),
      kind: z.string(),
      agent: named.optional(),
      region: z.string().optional(),
      numbers: z.array(z.object({ number: z.string(), agent: named.optional() })),
      counts: z.object({ succeeded: z.number(), failed: z.number(), cancelled: z.number(), pending: z.number() }),
      total: z.number(),
      of: z.number().optional(),
      undo: z.object({ withheld: z.string().optional() }).optional(),
    }),
  }),
]) satisfies z.ZodType<DigestEntry>;

/**
 * Posts each quiet subscription's digest that is due and has changes. Each is claimed before it is posted, and only
 * while `mayGoOn` says the background lease still holds (it throws), so that it is posted once at most: one Slack
 * refuses is logged, and its changes are not posted again.
 */
export async function postDigests(deps: OpsDeps, mayGoOn: () => void): Promise<void> {
  const { subscriptions } = await deps.settings.current();
  const now = deps.now();
  const due = dueSince(now);
  for (const { channel } of subscriptions.filter(({ quiet }) => quiet)) {
    mayGoOn();
    const lines = await atomically(deps, (deps) => deps.store.digests.claim(channel, due, now));
    const entries = lines.flatMap(({ id, line }) => {
      const parsed = digestEntry.safeParse(parseJson(line));
      if (parsed.success) return [parsed.data];
      deps.logger.warn({ id, channel, issues: parsed.error.issues }, 'skipped a digest line that does not read');
      return [];
    });
    if (entries.length === 0) continue;
    await deps.announcer.postDigest(channel, entries).catch((error: unknown) => {
      deps.logger.warn({ err: error, channel, lines: entries.length }, 'could not post a digest: its changes are lost');
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
