import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  type Announcement,
  AnnouncementFailed,
  type Announcer,
  type BatchAnnouncement,
  type Change,
  type ChannelsNow,
  announcedChange as changeSchema,
  type Destinations,
  type DigestEntry,
} from '../ops/api.js';
import type { LeasesRepo, OpenAnnouncementsRepo } from '../store/store.js';
import { retryAfterSeconds, slackErrorCode, type WebClient } from './clients.js';
import { mentionChannel } from './mrkdwn.js';
import { slackRefusal } from './slack-errors.js';
import {
  type AnnouncedChange,
  announcementMessage,
  CHANGES_IN_ONE_MESSAGE,
  outsideChangesMessage,
} from './views/announcement.js';
import { batchAnnouncementMessage } from './views/batches.js';
import type { SlackMessage } from './views/blocks.js';
import { digestMessage } from './views/digest.js';

// A short Retry-After is waited out once; a longer one would hold the graceful stop for a post nobody waits on.
const MAX_RETRY_AFTER_S = 10;
/**
 * A person's changes within this long of their message being posted are added to it. Counted from the post, not the
 * latest change, so that a message is never rewritten once newer ones have buried it: an update notifies no one.
 */
export const BURST_MS = 60_000;
/** Answers to chat.update meaning the message is no longer there to update: the change gets a message of its own. */
const GONE = new Set(['message_not_found', 'cant_update_message', 'edit_window_closed']);
/** How long one replica may hold a person's open message while it posts or rewrites it. */
const TURN_TTL_MS = 30_000;
const TURN_POLL_MS = 50;

/** The message a person's latest changes share. */
interface Burst {
  channel: string;
  ts: string;
  changes: AnnouncedChange[];
  postedAt: string;
}

/** The changes an open message lists, each with its Undo, so that a rewrite keeps every Undo beside its line. */
const keptChanges = z.array(
  z.object({
    change: changeSchema,
    undo: z.object({ correlationId: z.string(), offer: z.object({ withheld: z.string().optional() }) }).optional(),
  }),
);

/**
 * Posts each successful change to NOTIFY_CHANNEL_ID on a client of its own, so that a rate limit here delays no one's
 * reply. A person's changes within a minute share a message, rewritten in place; it is kept in the store, and their
 * announcements go out one at a time across replicas (a lease), so that two changes cannot both post.
 */
export function slackAnnouncer(
  client: WebClient,
  store: { openAnnouncements: OpenAnnouncementsRepo; leases: LeasesRepo },
  now: () => Date,
): Announcer {
  const open = store.openAnnouncements;
  const turns = new Map<string, Promise<void>>();
  const replica = randomUUID();

  /** Runs `work` holding the person's turn, which another replica may hold for a moment. */
  const inTurn = async (actorId: string, work: () => Promise<void>): Promise<void> => {
    const name = `announce:${actorId}`;
    while (!(await store.leases.take(name, replica, TURN_TTL_MS))) {
      await new Promise((resolve) => setTimeout(resolve, TURN_POLL_MS));
    }
    // Renewed while Slack is slow (a Retry-After, a timeout), so that another replica never takes the turn midway.
    const renewal = setInterval(() => {
      store.leases.take(name, replica, TURN_TTL_MS).catch(() => false);
    }, TURN_TTL_MS / 3);
    renewal.unref();
    try {
      await work();
    } finally {
      clearInterval(renewal);
      await store.leases.release(name, replica).catch(() => {});
    }
  };

  const post = async (channel: string, message: SlackMessage) => {
    try {
      return await withRetryAfter(() =>
        client.chat.postMessage({ channel, ...message, unfurl_links: false, unfurl_media: false }),
      );
    } catch (error) {
      throw failure(channel, error);
    }
  };

  /** One whose kept changes no longer read (written by another version) is not rewritten. */
  const openBurst = async (actorId: string, at: number): Promise<Burst | undefined> => {
    await open.forgetPostedBy(new Date(at - BURST_MS));
    const kept = await open.get(actorId);
    const changes = keptChanges.safeParse(kept?.changes);
    if (!kept || !changes.success || changes.data.length >= CHANGES_IN_ONE_MESSAGE) return undefined;
    return { channel: kept.channelId, ts: kept.messageTs, changes: changes.data, postedAt: kept.postedAt };
  };
  const keep = (actorId: string, { channel, ts, changes, postedAt }: Burst) =>
    open.keep(actorId, { channelId: channel, messageTs: ts, changes, postedAt });

  /** `key`: whose open message, in which channel (a subscribed channel keeps a person's message of its own). */
  const announceOne = async (
    channel: string,
    key: string,
    actorId: string,
    { change, undo }: Announcement,
  ): Promise<void> => {
    const announced: AnnouncedChange = undo ? { change, undo } : { change };
    const at = now().getTime();
    const burst = await openBurst(key, at);
    // Kept again only once Slack has taken the change: after a failure the next change starts a new message.
    await open.forget(key);
    if (burst) {
      const changes = [...burst.changes, announced];
      try {
        const message = announcementMessage(actorId, changes);
        await withRetryAfter(() => client.chat.update({ channel: burst.channel, ts: burst.ts, ...message }));
        await keep(key, { ...burst, changes });
        return;
      } catch (error) {
        if (!GONE.has(slackErrorCode(error))) throw failure(channel, error);
      }
    }
    const posted = await post(channel, announcementMessage(actorId, [announced]));
    if (posted.ts) {
      const postedAt = new Date(at).toISOString();
      await keep(key, { channel: posted.channel ?? channel, ts: posted.ts, changes: [announced], postedAt });
    }
  };

  return {
    announce: (announcement: Announcement, channelsNow: ChannelsNow) => {
      const actorId = announcement.actor.userId;
      // The channel is read in the person's turn, so that their announcements keep the order of their changes.
      const turn = (turns.get(actorId) ?? Promise.resolve()).then(async () => {
        const where = await channelsNow();
        if (!where.announcements && where.subscribed.length === 0) return;
        await inTurn(actorId, () =>
          toEach(where, (channel) => announceOne(channel, keyOf(actorId, channel, where), actorId, announcement)),
        );
      });
      const done = turn.catch(() => undefined);
      turns.set(actorId, done);
      void done.then(() => {
        if (turns.get(actorId) === done) turns.delete(actorId);
      });
      return turn;
    },
    // A batch has a message of its own, posted once: it is never grouped with single changes.
    announceBatch: async (announcement: BatchAnnouncement, channelsNow: ChannelsNow) => {
      await toEach(await channelsNow(), (channel) => post(channel, batchAnnouncementMessage(announcement)));
    },
    announceOutside: async (changes: Change[], channelsNow: ChannelsNow) => {
      await toEach(await channelsNow(), (channel) => post(channel, outsideChangesMessage(changes)));
    },
    postDigest: async (channel: string, entries: DigestEntry[]) => {
      await post(channel, digestMessage(entries));
    },
  };
}

/** The announcements channel keeps a person's open message by their id alone, as it always has. */
const keyOf = (actorId: string, channel: string, where: Destinations): string =>
  channel === where.announcements ? actorId : `${actorId} in ${channel}`;

/** Posts in every channel, one after another, even past one that fails; then throws for those that did. */
async function toEach(where: Destinations, post: (channel: string) => Promise<unknown>): Promise<void> {
  const channels = [...(where.announcements ? [where.announcements] : []), ...where.subscribed];
  const errors: unknown[] = [];
  for (const channel of channels) await post(channel).catch((error: unknown) => errors.push(error));
  const unsaid = errors.find((error) => !(error instanceof AnnouncementFailed));
  if (unsaid !== undefined) throw unsaid;
  const [first, ...more] = errors as AnnouncementFailed[];
  if (first && more.length === 0) throw first;
  if (first) throw new AnnouncementFailed(first.code, errors.map((each) => (each as Error).message).join(' '));
}

/** A call whose 429 names a short Retry-After is made once more after it. */
function withRetryAfter<T>(call: () => Promise<T>): Promise<T> {
  return call().catch(async (error: unknown) => {
    const wait = retryAfterSeconds(error);
    if (wait === undefined || wait > MAX_RETRY_AFTER_S) throw error;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    return call();
  });
}

function failure(channelId: string, error: unknown): AnnouncementFailed {
  const code = slackErrorCode(error);
  return new AnnouncementFailed(code, `${mentionChannel(channelId)} did not get the announcement: ${why(code)}`);
}

function why(code: string): string {
  switch (code) {
    case 'not_in_channel':
      return 'the app is not in that channel. Invite it with `/invite @Voice Ops`.';
    case 'channel_not_found':
      return 'Slack does not know that channel. An admin should check NOTIFY_CHANNEL_ID.';
    case 'is_archived':
      return 'the channel is archived. An admin should unarchive it or change NOTIFY_CHANNEL_ID.';
    case 'ratelimited':
      return 'Slack is limiting how often the app may post there. Tell the channel yourself.';
    case 'timeout':
    case 'unreachable':
      return 'Slack did not answer in time. Tell the channel yourself.';
    default:
      return slackRefusal(code) ?? `Slack answered \`${code}\`.`;
  }
}
