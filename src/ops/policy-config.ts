// The guardrails as configured: plain data, read from the environment by src/config.ts.

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
}
