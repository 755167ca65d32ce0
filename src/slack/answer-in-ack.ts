// A slash command's answer can ride in its acknowledgement: one HTTP exchange instead of two. Only an answer that
// waited on no I/O after the delivery's key rides there (it is ready by `process.nextTick`); any other command is
// acknowledged bare then, and answered by response_url.
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
