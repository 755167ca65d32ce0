// Events the app has no listener for (its settings subscribe to more than manifest.yml does) go no further than a
// debug line: no delivery key, no audit as a refusal.
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { z } from 'zod';
import type { Logger } from '../log.js';

const eventDelivery = z.object({
  event_id: z.string().optional(),
  event: z.object({ type: z.string() }),
});

export function ignoreUnlistenedEvents(listened: readonly string[], logger: Logger): Middleware<AnyMiddlewareArgs> {
  const types = new Set(listened);
  return async (args) => {
    const delivery = eventDelivery.safeParse(args.body);
    if (!delivery.success || types.has(delivery.data.event.type)) return args.next();
    logger.debug(
      { event: delivery.data.event.type, eventId: delivery.data.event_id, retry: args.context.retryNum },
      'ignored an event the app has no listener for',
    );
  };
}
