// Refusals the Slack layer decides before any use case runs (a delivery from elsewhere, a person from another
// organization, a command malformed), audited here under a correlation id of their own.
import type { AuditAction } from '../store/audit.js';
import { newCorrelationId, record } from './audit-rows.js';
import type { OpsDeps } from './deps.js';
import { type Actor, type Failure, fail } from './types.js';

/** Audits a delivery refused for where it came from, and returns why. */
async function refuseFrom(
  deps: OpsDeps,
  actor: Actor,
  appHome: string,
  reason: string,
  failure: Failure,
): Promise<Failure> {
  const params = { reason, appHome, enterpriseId: actor.enterpriseId };
  await record(deps, actor, newCorrelationId(), { action: 'access.denied', outcome: 'denied', params, error: failure });
  return failure;
}

/** Audits a delivery from a workspace or org other than the app's, refused before any listener sees it. */
export async function refuseOtherWorkspace(deps: OpsDeps, actor: Actor, appHome: string): Promise<void> {
  const failure = fail('denied', `The request came from workspace ${actor.teamId ?? 'unknown'}, not ${appHome}.`);
  await refuseFrom(deps, actor, appHome, 'other workspace', failure);
}

/**
 * Audits a person from another organization (in a channel shared with it through Slack Connect), who may read and
 * change nothing, and returns why, for them.
 */
export function refuseOutsider(deps: OpsDeps, actor: Actor, appHome: string, unconfirmed: boolean): Promise<Failure> {
  if (unconfirmed) {
    const failure = fail(
      'denied',
      `Voice Ops serves ${appHome} only, and Slack could not say right now which organization you belong ` +
        'to: it shows and changes nothing until it can. Try again in a minute.',
      { code: 'organization_unknown' },
    );
    return refuseFrom(deps, actor, appHome, 'organization unknown', failure);
  }
  const failure = fail(
    'denied',
    `Voice Ops serves ${appHome} only, and you are in another organization (a channel shared through Slack ` +
      'Connect): it shows and changes nothing for you. Ask someone in that organization to run it.',
    { code: 'other_organization' },
  );
  return refuseFrom(deps, actor, appHome, 'other organization', failure);
}

/** Audits a change command refused for its form (or for an agent it names that none is), before any use case saw it. */
export function refuseInput(
  deps: OpsDeps,
  actor: Actor,
  action: AuditAction,
  refusal: string | Failure,
): Promise<void> {
  return record(deps, actor, newCorrelationId(), {
    action,
    outcome: 'rejected',
    error: typeof refusal === 'string' ? fail('invalid', refusal) : refusal,
  });
}
