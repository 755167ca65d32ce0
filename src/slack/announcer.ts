import { type Announcement, AnnouncementFailed, type Announcer, type Change } from '../ops/index.js';
import { retryAfterSeconds, slackErrorCode, type WebClient } from './clients.js';
import { mentionChannel } from './mrkdwn.js';
import { announcementMessage, outsideChangesMessage } from './views/announcement.js';
import type { SlackMessage } from './views/blocks.js';

// A short Retry-After is waited out once; a longer one would hold the graceful stop for a post nobody waits on.
const MAX_RETRY_AFTER_S = 10;

/**
 * Posts each successful change to the team's channel on a client of its own, so that a rate limit or a hang here
 * delays no one's reply; without NOTIFY_CHANNEL_ID it stays silent. A failure says why, in words for the requester.
 */
export function slackAnnouncer(client: WebClient, channelId: string | undefined): Announcer {
  const post = async (message: SlackMessage) => {
    if (!channelId) return;
    const send = () =>
      client.chat.postMessage({ channel: channelId, ...message, unfurl_links: false, unfurl_media: false });
    try {
      await send().catch(async (error: unknown) => {
        const wait = retryAfterSeconds(error);
        if (wait === undefined || wait > MAX_RETRY_AFTER_S) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        return send();
      });
    } catch (error) {
      const code = slackErrorCode(error);
      throw new AnnouncementFailed(code, `${mentionChannel(channelId)} did not get the announcement: ${why(code)}`);
    }
  };
  return {
    announce: (announcement: Announcement) => post(announcementMessage(announcement)),
    announceOutside: (changes: Change[]) => post(outsideChangesMessage(changes)),
  };
}

function why(code: string): string {
  switch (code) {
    case 'not_in_channel':
      return 'the app is not in that channel. Invite it with `/invite @Voice Ops`.';
    case 'channel_not_found':
      return 'Slack does not know that channel. An admin should check NOTIFY_CHANNEL_ID.';
    case 'is_archived':
      return 'the channel is archived. An admin should unarchive it or change NOTIFY_CHANNEL_ID.';
    case 'ratelimited':
      return 'Slack is limiting how often the app may post there. Tell the channel yourself.';
    case 'timeout':
    case 'unreachable':
      return 'Slack did not answer in time. Tell the channel yourself.';
    default:
      return `Slack answered \`${code}\`.`;
  }
}
