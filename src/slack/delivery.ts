// The scope of the delivery under way (delivery-scope.ts), kept on Bolt's context for the middleware and the router.
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
