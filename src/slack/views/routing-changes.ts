// `/voice changes since TIME`: a line per number whose routing changed since then, then → now; a long list is cut
// short, saying how many more changed and where to read them.
import { counted } from '../../counts.js';
import { type NamedRouteChange, type RoutingChanges, regionOf } from '../../ops/api.js';
import { code, escapeMrkdwn, mentionUser } from '../mrkdwn.js';
import { capped, context, LIMITS, message, packLines, type SlackMessage, section, textMessage } from './blocks.js';
import { mrkdwnOf } from './phrase.js';
import { scopeLead } from './scope.js';

/** Numbers listed in one answer, so that it keeps well within a message's blocks; the rest are counted. */
export const CHANGES_SHOWN = 50;
/** People named on one line; the rest are counted. */
const PEOPLE_SHOWN = 5;

function agentOrNowhere(agent: NamedRouteChange['before']): string {
  return agent ? mrkdwnOf([{ agent }]) : 'nowhere';
}

/** "<@U1>, <@U2> and outside Voice Ops": the people who changed it, and the provider's own changes Voice Ops noticed. */
function whoText(change: NamedRouteChange): string {
  const people = change.by.slice(0, PEOPLE_SHOWN).map(mentionUser);
  const more = change.by.length - PEOPLE_SHOWN;
  const who = [
    ...people,
    ...(more > 0 ? [counted(more, 'other')] : []),
    ...(change.outside ? ['outside Voice Ops'] : []),
  ];
  return who.length > 1 ? `${who.slice(0, -1).join(', ')} and ${who.at(-1)}` : (who[0] ?? '');
}

/**
 * Its agent then → now; a number routed away and back says so rather than naming one agent twice: by an Undo, or by
 * another change.
 */
function routeText(change: NamedRouteChange): string {
  if (!change.before || change.before.id !== change.after?.id || change.ownership.length) {
    const moved = `${agentOrNowhere(change.before)} → ${agentOrNowhere(change.after)}`;
    return change.undone ? `${moved} · an Undo among the changes` : moved;
  }
  const back = change.undone ? 're-routed, then undone' : 're-routed, then routed back';
  return `${agentOrNowhere(change.before)} then and now: ${back}, no net change`;
}

/** One number: `*+1…* (US): *Support* (`agt_1`) → nowhere · released · by <@U1>`. */
function changeLine(change: NamedRouteChange): string {
  const number = mrkdwnOf([{ number: change.number, region: regionOf(change.number) }]);
  const parts = [
    `• ${number}: ${routeText(change)}`,
    ...(change.ownership.length ? [escapeMrkdwn(change.ownership.join(', then '))] : []),
    `by ${whoText(change)}`,
  ];
  return parts.join(' · ');
}

export function routingChangesMessage(found: RoutingChanges): SlackMessage {
  const since = escapeMrkdwn(found.since);
  const lead = scopeLead(found.scope, 'numbers');
  if (!found.changes.length) {
    return textMessage(
      `${lead}:information_source: Nothing in the routing changed since ${since}: the verified audit log has no route, buy ` +
        'or release after it.',
    );
  }
  const total = counted(found.changes.length, 'number');
  const { shown, hidden } = capped(found.changes, CHANGES_SHOWN);
  const more = hidden ? `And ${counted(hidden, 'more number')}. ` : '';
  return message(`Routing changes since ${since}: ${total}`, [
    section(`${lead}*Routing changes since ${since}*: ${total}, from the verified audit log, agent then → agent now.`),
    ...packLines(shown.map(changeLine), LIMITS.sectionText).map((text) => section(text)),
    context(
      `${more}\`/voice audit +NUMBER\` shows each change of a number, and ${code(`/voice export as of ${found.sinceUtc}`)} ` +
        'the whole routing then, to paste into `/voice plan` and route back.',
    ),
  ]);
}
