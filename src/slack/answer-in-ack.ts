// A slash command's answer can ride in its acknowledgement, which Slack shows as the reply: one HTTP exchange
// instead of two, and nothing on the way to lose. Only an answer that waited on no I/O after the delivery's key (help,
// a typo's correction, a refusal by role) rides there: it is ready once the promises its listener set going have
// settled, when `process.nextTick` runs. Any other command is acknowledged bare then, before any I/O of its own
// completes, and its answer goes by response_url as before.
import type { AckFn, RespondArguments } from '@slack/bolt';
import type { Logger } from '../log.js';
import type { Respond } from './respond.js';

export interface AnswerInAck {
  /** The command's private reply: in the acknowledgement while it is not yet sent, by `respond` after. */
  reply: Respond;
  /** Acknowledges bare now, unless already acknowledged: when the listener ends or fails without a reply. */
  ackBare(): Promise<void>;
}

export function answerInAck(ack: AckFn<string | RespondArguments>, respond: Respond, logger: Logger): AnswerInAck {
  let acked = false;
  const ackBare = async () => {
    if (acked) return;
    acked = true;
    await ack();
  };
  process.nextTick(() => {
    ackBare().catch((error: unknown) => logger.warn({ err: error }, 'could not acknowledge a command'));
  });
  return {
    ackBare,
    reply: async (message, options) => {
      if (acked) return respond(message, options);
      acked = true;
      // Refused when Slack's three seconds ran out while the delivery waited for its key (Bolt answered for it).
      await ack({ response_type: 'ephemeral', ...message }).catch(() => respond(message, options));
    },
  };
}
