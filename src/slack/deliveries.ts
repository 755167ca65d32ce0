import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';
import type { DeliveryKeys } from '../store/dedupe.js';

// What identifies one delivery from Slack: a retry or a duplicate carries the same trigger_id (commands,
// buttons, modals) or event_id (events) as the original.
const identified = z.union([
  z.object({ event_id: z.string().min(1) }).transform((body) => `event:${body.event_id}`),
  z.object({ trigger_id: z.string().min(1) }).transform((body) => `trigger:${body.trigger_id}`),
]);

/**
 * Acknowledges a delivery that was already handled and goes no further, so that a retry after a slow
 * acknowledgement, or the same payload delivered twice, acts once.
 */
export function dropRepeatedDeliveries(keys: DeliveryKeys, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const key = identified.safeParse(args.body);
    if (!key.success || keys.firstSeen(key.data)) return args.next();
    logger.info({ delivery: key.data, retry: args.context.retryNum }, 'dropped a repeated delivery');
    if ('ack' in args && args.ack) await args.ack();
  };
}
