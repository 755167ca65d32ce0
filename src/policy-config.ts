// The guardrails as configured: plain data, read from the environment by src/config.ts.

/** The changes that may be made to wait for a second person's approval. */
export const APPROVABLE_ACTIONS = ['number.buy', 'number.release', 'agent.delete', 'routing.map'] as const;
export type ApprovableAction = (typeof APPROVABLE_ACTIONS)[number];

/** At most `count` numbers bought per UTC day or per ISO week (Monday to Sunday, UTC). */
export interface BuyLimit {
  count: number;
  window: 'day' | 'week';
}

export interface PolicyConfig {
  /** VOICE_BUY_LIMIT: buys for the whole workspace. */
  buyLimit?: BuyLimit;
  /** VOICE_BUY_LIMIT_PER_USER: buys by each person. */
  buyLimitPerUser?: BuyLimit;
  /** VOICE_CHANGE_CHANNELS: the channels where changes are accepted; empty means anywhere. */
  changeChannels: string[];
  /** VOICE_TYPED_RELEASE: releasing a number that routes to an agent asks for its last four digits, typed. */
  typedRelease: boolean;
  /** VOICE_REQUIRE_APPROVAL: changes that, once confirmed, wait for another person's approval. */
  requireApproval: ApprovableAction[];
  /** VOICE_APPROVALS_CHANNEL_ID, else NOTIFY_CHANNEL_ID: where requests for approval are posted. */
  approvalsChannelId?: string;
  /** VOICE_APPROVAL_TTL_HOURS: a request not decided within this time ends. */
  approvalTtlHours: number;
  /** VOICE_UNDO_HOURS: how long after a change its Undo is offered (0: never). */
  undoHours: number;
}
