import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { DeliveriesRepo } from '../store/store.js';
import { deliveryIn } from './delivery.js';

// What identifies one delivery from Slack: a retry or a duplicate carries the same trigger_id (commands,
// buttons, modals) or event_id (events) as the original.
const identified = z.union([
  z.object({ event_id: z.string().min(1) }).transform((body) => `event:${body.event_id}`),
  z.object({ trigger_id: z.string().min(1) }).transform((body) => `trigger:${body.trigger_id}`),
]);

/** So that a retry after a slow acknowledgement, or a payload delivered twice, acts once. */
export function dropRepeatedDeliveries(keys: DeliveriesRepo, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const key = identified.safeParse(args.body);
    if (!key.success) return args.next();
    const seen = await keys.firstSeen(key.data);
    if (seen.first) {
      deliveryIn(args.context)?.noteSettingsVersion(seen.settingsVersion);
      return args.next();
    }
    logger.info({ delivery: key.data, retry: args.context.retryNum }, 'dropped a repeated delivery');
    if ('ack' in args && args.ack) await args.ack();
  };
}

// What a delivery is, in a few words, for the log of a stop that could not wait for it: the command and its text, the
// button or the form, and who sent it.
const described = z.union([
  z
    .object({ command: z.string(), text: z.string().optional(), user_id: z.string() })
    .transform((body) => [body.command, body.text?.slice(0, 100), `from ${body.user_id}`]),
  z
    .object({
      type: z.string(),
      actions: z.array(z.object({ action_id: z.string() })).optional(),
      view: z.object({ callback_id: z.string() }).optional(),
      event: z.object({ type: z.string() }).optional(),
      user: z.object({ id: z.string() }).optional(),
    })
    .transform((body) => [
      body.type,
      body.actions?.[0]?.action_id ?? body.view?.callback_id ?? body.event?.type,
      body.user && `from ${body.user.id}`,
    ]),
]);

export function describeDelivery(body: unknown): string {
  const parsed = described.safeParse(body);
  return parsed.success ? parsed.data.filter(Boolean).join(' ') : 'a delivery of another kind';
}
