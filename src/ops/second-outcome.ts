// One outcome per change: whoever closes its intent records it. A later outcome that says the other thing (a paused
// sender that heard "done" after the reconciler settled it as not done) is refused in the open: audited, counted and
// logged, so that someone checks the provider.
import type { IntentOutcome } from '../store/intents.js';
import { record } from './audit-rows.js';
import { requestIdOf } from './changes.js';
import type { OpsDeps } from './deps.js';
import { type Actor, type Failure, fail } from './types.js';

/** The audit action of a refused second outcome. */
export const SECOND_OUTCOME = 'change.second_outcome';

/** An outcome refused because the change's intent was closed with the other one. */
export interface SecondOutcome {
  correlationId: string;
  action: string;
  recorded: IntentOutcome;
  refused: IntentOutcome;
}

/** When the intent was closed with the other outcome, audits the refusal, for `reportSecondOutcome` after. */
export async function refuseSecondOutcome(
  deps: OpsDeps,
  actor: Actor,
  correlationId: string,
  change: { action: string; target?: string; refused: IntentOutcome },
): Promise<SecondOutcome | undefined> {
  const recorded = (await deps.store.intents.get(correlationId))?.outcome;
  if (recorded === undefined || recorded === change.refused) return undefined;
  const second = { correlationId, action: change.action, recorded, refused: change.refused };
  await record(deps, { ...actor, source: 'system' }, requestIdOf(correlationId), {
    action: SECOND_OUTCOME,
    outcome: 'rejected',
    target: change.target,
    params: { change: change.action, recorded, refused: change.refused },
    error: secondOutcomeFailure(second),
  });
  return second;
}

/** Counts and logs a refused second outcome; after its transaction, so that a replayed one is told once. */
export function reportSecondOutcome(deps: OpsDeps, second: SecondOutcome): void {
  deps.metrics.secondOutcomeRefused(second.action);
  deps.logger.error(second, 'a second outcome of one change was refused: check what the provider shows');
}

/** What the requester is told of it, and what its audit row says. */
export function secondOutcomeFailure(second: SecondOutcome): Failure {
  const said = (outcome: IntentOutcome) => (outcome === 'succeeded' ? 'done' : 'not done');
  return fail(
    'conflict',
    `This change was settled meanwhile as ${said(second.recorded)}, and then the provider's answer said ` +
      `${said(second.refused)}. Voice Ops keeps the first outcome and has recorded the conflict: check what the ` +
      'provider shows before trying again.',
    { code: 'second_outcome' },
  );
}

/** Whether a failure is an outcome refused as a change's second one. */
export const isSecondOutcome = (failure: Failure): boolean => failure.code === 'second_outcome';
