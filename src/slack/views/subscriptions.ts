// `/voice subscriptions`: every channel subscribed to changes, what its filter picks, and its Unsubscribe.
import type { Subscription } from '../../settings-schema.js';
import { ACTION } from '../ids.js';
import { mentionChannel } from '../mrkdwn.js';
import { button, context, header, message, type SlackMessage, section } from './blocks.js';
import { subscribedLine } from './settings.js';

const HOW =
  'In a channel, `/voice subscribe route +label:team:sales` posts there the route changes of what is labelled ' +
  'team:sales; `/voice unsubscribe` stops it. Each is a settings change, confirmed and audited.';

export function subscriptionsMessage(subscriptions: readonly Subscription[], announcements?: string): SlackMessage {
  const everything = announcements
    ? `Every change is posted in ${mentionChannel(announcements)} too.`
    : 'No announcements channel is set.';
  const rows = subscriptions.map((subscription) =>
    section(
      subscribedLine(subscription),
      button({ text: 'Unsubscribe', actionId: ACTION.unsubscribe, value: subscription.channel }),
    ),
  );
  const none = rows.length ? [] : [section('No channel is subscribed to changes.')];
  return message('Subscriptions', [header('Subscriptions'), ...rows, ...none, context(`${everything} ${HOW}`)]);
}
