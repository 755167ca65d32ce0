// Values the parent and the child processes share. (A child's entry file cannot be imported for its constants:
// importing it would run it.)

export const BOT_TOKEN = 'xoxb-bench-bot-token-0000000000';
export const SIGNING_SECRET = 'bench-signing-secret';
/** In VOICE_ADMINS of the app under test: every command is allowed, help lists them all. */
export const ADMIN = 'UADMIN';
export const OPERATOR = 'UOPERATOR';
/** The account of the listing bench (bench/lists.ts): every list must serve it in full. */
export const SCALE = { numbers: 10_000, agents: 1_000 } as const;
