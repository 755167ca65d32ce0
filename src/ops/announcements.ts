// What an announcement says: a successful change, a batch's outcome, and the Announcer that posts them. Plain data
// and an interface, beneath everything that announces (notify.ts) or carries a change out (carry-out.ts).
import type { Actor } from './types.js';

/** A finished change, as announced in the team's channel (and kept while its message is open), in its kind's shape. */
export interface Change {
  readonly action: string;
  readonly [field: string]: unknown;
}

/** Whether Undo is offered for a change, and if not, why (see kinds/index.ts's `undoOffer`). */
export interface UndoOffer {
  withheld?: string;
}

export interface Announcement {
  actor: Actor;
  change: Change;
  /** The change's request, and its Undo, offered beside it while its message announces it alone. */
  undo?: { correlationId: string; offer: UndoOffer };
}

/** A bulk change, announced once as a whole, never item by item. */
export interface BatchAnnouncement {
  actor: Actor;
  batchId: string;
  kind: string;
  /** The agent of a bulk map. */
  agent?: { id: string; name: string };
  /** A bulk buy's region. */
  region?: string;
  /**
   * The numbers the batch changed, in its plan's order; each with its agent when a routing text routed each number to
   * an agent of its own.
   */
  numbers: { number: string; agent?: { id: string; name: string } }[];
  counts: { succeeded: number; failed: number; cancelled: number; pending: number };
  /** Items the batch set out to change. */
  total: number;
  /** How many numbers the batch changed, when `numbers` are only those of them a subscribed channel picks. */
  of?: number;
  /** Its Undo, for its requester and admins; absent when the policy offers none. */
  undo?: UndoOffer;
}

/**
 * Where an announcement goes, read when its turn comes: the announcements channel, where a person's changes share a
 * message, and the channels subscribed to what it is about, never the same channel twice; none: nothing is posted.
 */
export interface Destinations {
  announcements?: string;
  subscribed: string[];
}
export type ChannelsNow = () => Promise<Destinations>;

/** A change as a quiet subscription's daily digest lists it: by a person, a bulk change, or one made outside. */
export type DigestEntry = { actorId: string; change: Change } | { batch: BatchAnnouncement } | { outside: Change };

/** Where announcements go; the Slack layer posts them, trying every channel before it throws for any that failed. */
export interface Announcer {
  announce(announcement: Announcement, channels: ChannelsNow): Promise<void>;
  announceBatch(announcement: BatchAnnouncement, channels: ChannelsNow): Promise<void>;
  /** Changes noticed at the provider that no one made through Voice Ops, in one message. */
  announceOutside(changes: Change[], channels: ChannelsNow): Promise<void>;
  /** A quiet subscription's digest: the changes since its last one, in one message. */
  postDigest(channel: string, entries: DigestEntry[]): Promise<void>;
}

/** Thrown by an Announcer when the channel did not get the post; the message says why and what to do. */
export class AnnouncementFailed extends Error {
  override readonly name = 'AnnouncementFailed';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
