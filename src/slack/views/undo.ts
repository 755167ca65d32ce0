// Undo beside a finished change or batch: its button, for its maker and admins, or why it is not offered.
import type { Button } from '@slack/types';
import type { UndoOffer } from '../../ops/api.js';
import { ACTION } from '../ids.js';
import { escapeMrkdwn } from '../mrkdwn.js';
import { button, context } from './blocks.js';

/** The Undo button of a change (by its correlation id), when it is offered. */
export const undoButton = (correlationId: string, offer: UndoOffer | undefined): Button[] =>
  offer && !offer.withheld ? [button({ text: 'Undo', actionId: ACTION.undoChange, value: correlationId })] : [];

/** Why Undo is not offered, where the button would be. */
export const undoWithheld = (offer: UndoOffer | undefined) =>
  offer?.withheld ? [context(`:information_source: ${escapeMrkdwn(offer.withheld)}`)] : [];
