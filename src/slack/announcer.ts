import type { App } from '@slack/bolt';
import type { Announcement, Announcer } from '../ops/notify.js';
import { announcementMessage } from './views/announcement.js';

/** Posts each successful change to the team's channel; without NOTIFY_CHANNEL_ID it stays silent. */
export function slackAnnouncer(client: App['client'], channelId: string | undefined): Announcer {
  return {
    announce: async (announcement: Announcement) => {
      if (!channelId) return;
      await client.chat.postMessage({
        channel: channelId,
        ...announcementMessage(announcement),
        unfurl_links: false,
        unfurl_media: false,
      });
    },
  };
}
