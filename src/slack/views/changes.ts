import { type Change, saidOf } from '../../ops/api.js';
import { mrkdwnOf } from './phrase.js';

/**
 * What a finished change did, as a predicate in escaped mrkdwn: "bought *+1…* (US, id `pn_1`)". Numbers come with their
 * region and agents with their name and id. The announcement puts the actor before it; the requester's result
 * capitalises it.
 */
export const describeChange = (change: Change): string => mrkdwnOf(saidOf(change).did);

/** Where to read more of what a change was about: a card of what still exists, the audit of what is gone. */
export const lookUpCommand = (change: Change): string => saidOf(change).lookUp;
