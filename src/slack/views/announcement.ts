import type { Announcement } from '../../ops/notify.js';
import { mentionUser } from '../mrkdwn.js';
import { type SlackMessage, textMessage } from './blocks.js';
import { describeChange } from './changes.js';

/** Posted to the team's channel: who changed what. A Change carries no secret, so none can leak here. */
export function announcementMessage(announcement: Announcement): SlackMessage {
  return textMessage(`${mentionUser(announcement.actor.userId)} ${describeChange(announcement.change)}`);
}
