// The scope of the delivery under way (delivery-scope.ts), kept on Bolt's context: opened by the middleware that tells
// the person what a database failure stopped (database-faults.ts), filled in by the delivery's key (deliveries.ts),
// and handed to the listener with deps bound to it (router.ts).
import type { Context } from '@slack/bolt';
import { DeliveryScope } from '../delivery-scope.js';

const KEY = 'voiceOpsDelivery';

export function openDelivery(context: Context): DeliveryScope {
  const delivery = new DeliveryScope();
  context[KEY] = delivery;
  return delivery;
}

export function deliveryIn(context: Context): DeliveryScope | undefined {
  const delivery = context[KEY];
  return delivery instanceof DeliveryScope ? delivery : undefined;
}
