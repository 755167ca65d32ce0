import { type Change, saidOf } from '../../ops/api.js';
import { mrkdwnOf } from './phrase.js';

/** A predicate in escaped mrkdwn: "bought *+1…* (US, id `pn_1`)", for the actor to stand before. */
export const describeChange = (change: Change): string => mrkdwnOf(saidOf(change).did);

/** Where to read more of what a change was about: a card of what still exists, the audit of what is gone. */
export const lookUpCommand = (change: Change): string => saidOf(change).lookUp;
