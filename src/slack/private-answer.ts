// Answering a delivery that no listener will answer (a refusal, a database that cannot be reached): a slash
// command's acknowledgement carries the text; a workflow step ends with it, so that its workflow stops; any other
// delivery is acknowledged bare and told the private way a reply would go.
import type { AnyMiddlewareArgs } from '@slack/bolt';
import { z } from 'zod';
import { replyTo, type SlackDeps } from './deps.js';
import { escapeMrkdwn } from './mrkdwn.js';
import { slackStepEnds } from './step-ends.js';
import { textMessage } from './views/blocks.js';
import { infoModal } from './views/modals.js';

/** A slash command's acknowledgement can carry a reply; other kinds are acknowledged bare. */
export async function acknowledge(args: AnyMiddlewareArgs, text: string): Promise<void> {
  if (!('ack' in args) || !args.ack) return;
  if ('command' in args) await args.ack({ response_type: 'ephemeral', text });
  else await (args.ack as () => Promise<void>)();
}

const stepDelivery = z.object({
  event: z.object({ type: z.literal('function_executed'), function_execution_id: z.string() }),
});

/** A workflow step ends with the text; `replace` takes the place of the message that held the button. */
export async function tellPrivately(
  deps: SlackDeps,
  body: AnyMiddlewareArgs['body'],
  userId: string,
  text: string,
  options: { replace?: boolean } = {},
): Promise<void> {
  const step = stepDelivery.safeParse(body);
  if (step.success) {
    const executionId = step.data.event.function_execution_id;
    await slackStepEnds(deps.slack.announcements)
      .end(executionId, { ok: false, error: text })
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, executionId }, 'could not end a refused workflow step'),
      );
    return;
  }
  const message = textMessage(`:no_entry: ${escapeMrkdwn(text)}`);
  // A modal still open (its "Working on it…", say) shows the answer in place; one that cannot be updated any more
  // (closed, or gone) leaves the private routes.
  const viewId = 'view' in body && body.view && 'id' in body.view ? body.view.id : undefined;
  if (options.replace && viewId) {
    const shown = await deps.slack.ui.views.update({ view_id: viewId, view: infoModal('Voice Ops', message) }).then(
      () => true,
      () => false,
    );
    if (shown) return;
  }
  const responseUrl = 'response_url' in body && typeof body.response_url === 'string' ? body.response_url : undefined;
  const channelId = 'channel' in body && body.channel && 'id' in body.channel ? body.channel.id : undefined;
  const reply = replyTo(deps, { userId, channelId, responseUrl });
  await reply(message, options).catch((error: unknown) => {
    deps.logger.warn({ err: error, userId }, 'could not answer privately');
  });
}
