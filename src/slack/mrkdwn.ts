// The one place that escapes text for Slack's mrkdwn. Slack parses `<…>` as mentions (`<!channel>`, `<@U…>`) and
// links (`<http://x|y>`), so every piece of text we did not write ourselves goes through `escapeMrkdwn` before it
// lands in a mrkdwn field; Slack decodes the entities back for display.

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Shortens text to at most `max` characters, ending in `…`, for Slack's length limits. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text
    .slice(0, Math.max(0, max - 1))
    // Half a surrogate pair or half an entity (`&am`) would render as garbage.
    .replace(/[\uD800-\uDBFF]$/, '')
    .replace(/&[a-z]{0,4}$/, '');
  return `${cut}…`;
}

/** Escapes, then shortens: the result fits `max` however many characters the escaping added. */
export function escapeAndTruncate(text: string, max: number): string {
  return truncate(escapeMrkdwn(text), max);
}

const SLACK_USER_ID = /^[UW][A-Z0-9]+$/;

/**
 * The only mention we render raw: the actor of a change, whose id Slack itself gave us. Anything that does not look
 * like a user id is shown as escaped text, so it can never ping anyone.
 */
export function mentionUser(userId: string): string {
  return SLACK_USER_ID.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

const SLACK_CHANNEL_ID = /^[CG][A-Z0-9]+$/;

/** A channel link from an id in our own configuration; anything else is shown as escaped text. */
export function mentionChannel(channelId: string): string {
  return SLACK_CHANNEL_ID.test(channelId) ? `<#${channelId}>` : escapeMrkdwn(channelId);
}
