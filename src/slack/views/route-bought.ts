// The way on from a buy: what was bought, routed to an agent picked in place, or to a new one made for it.
import type { ActionsBlock } from '@slack/types';
import type { Bought } from '../bought.js';
import { ACTION } from '../ids.js';
import { encodeValue } from '../paging.js';
import { actions, button, externalSelect } from './blocks.js';

export function routeBoughtBlock(what: Bought): ActionsBlock {
  const value = encodeValue(what);
  // The picker carries no value of its own: its block names what it routes.
  return actions(
    [
      externalSelect({ actionId: ACTION.routeBought, placeholder: 'Route to an agent' }),
      button({ text: 'Create an agent', actionId: ACTION.createAgentForBought, value }),
    ],
    value,
  );
}
