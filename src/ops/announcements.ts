// What an announcement says: a successful change, a batch's outcome, and the Announcer that posts them. Plain data
// and an interface, beneath everything that announces (notify.ts) or carries a change out (carry-out.ts).
import { z } from 'zod';
import type { Actor } from './types.js';

const numberRef = z.object({ id: z.string(), number: z.string() });
const agentRef = z.object({ id: z.string(), name: z.string().optional() });

/** A successful change, as announced in the team's channel (and kept while its message is open). Never a secret. */
export const change = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('agent.create'),
    agent: z.object({ id: z.string(), name: z.string(), language: z.string() }),
  }),
  z.object({ action: z.literal('agent.delete'), agent: z.object({ id: z.string(), name: z.string() }) }),
  z.object({ action: z.literal('number.buy'), number: numberRef }),
  z.object({ action: z.literal('number.release'), number: numberRef, unroutedAgent: agentRef.optional() }),
  z.object({
    action: z.literal('routing.map'),
    number: z.string(),
    agent: z.object({ id: z.string(), name: z.string() }),
    previousAgent: agentRef.optional(),
  }),
]);
export type Change = z.infer<typeof change>;

/** The number or agent id a change is about, as the audit log names it. */
export function subjectOf(change: Change): string {
  switch (change.action) {
    case 'agent.create':
    case 'agent.delete':
      return change.agent.id;
    case 'number.buy':
    case 'number.release':
      return change.number.number;
    case 'routing.map':
      return change.number;
  }
}

export interface Announcement {
  actor: Actor;
  change: Change;
}

/** A bulk change, announced once as a whole, never item by item. */
export interface BatchAnnouncement {
  actor: Actor;
  batchId: string;
  kind: 'routing.map' | 'number.buy' | 'number.release';
  /** The agent of a bulk map. */
  agent?: { id: string; name: string };
  /** A bulk buy's region. */
  region?: string;
  /**
   * The numbers the batch changed, in its plan's order; each with its agent when a routing text routed each number to
   * an agent of its own.
   */
  numbers: { number: string; agent?: { id: string; name: string } }[];
  /** Items by outcome. */
  counts: { succeeded: number; failed: number; cancelled: number; pending: number };
  /** Items the batch set out to change. */
  total: number;
}

/** Where announcements go; the Slack layer posts them to NOTIFY_CHANNEL_ID. */
export interface Announcer {
  announce(announcement: Announcement): Promise<void>;
  announceBatch(announcement: BatchAnnouncement): Promise<void>;
  /** Changes noticed at the provider that no one made through Voice Ops, in one message. */
  announceOutside(changes: Change[]): Promise<void>;
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
