// A change refused because another holds one of its numbers or agents says which change that is, who asked for it
// and since when, so that the person knows whom to ask rather than guessing whether something is stuck.
import type { OpsDeps } from './deps.js';
import { kindOf } from './kinds/index.js';
import { type Failure, fail } from './types.js';

const MINUTE_MS = 60_000;

/** What holds it: "releasing, by @Ada since 17:02 UTC, 3 minutes". */
interface Holding {
  doing: string;
  by: { userId: string; userName?: string };
  since: Date;
}

/** Refuses a change to `what` whose `keys` another change holds, naming that change when it can still be found. */
export async function busyWith(deps: OpsDeps, keys: readonly string[], what: string): Promise<Failure> {
  const holder = await deps.locks.holderOf(keys);
  const holding = holder === undefined ? undefined : await holdingOf(deps, holder);
  const opening = `Another change to ${what} is in progress`;
  const closing = '. Wait for it to finish, then look again.';
  if (!holding) return fail('busy', `${opening}${closing}`);
  const since = `since ${clockTime(holding.since)} UTC, ${forHowLong(deps.now(), holding.since)})`;
  const by = holding.by.userName ?? holding.by.userId;
  return fail('busy', `${opening} (${holding.doing}, by ${by} ${since}${closing}`, {
    said: [`${opening} (${holding.doing}, by `, { member: holding.by.userId }, ` ${since}${closing}`],
  });
}

async function holdingOf(deps: OpsDeps, holder: string): Promise<Holding | undefined> {
  const intent = await deps.store.intents.get(holder);
  if (intent) {
    const doing = kindOf(intent.change).confirm?.gerund ?? intent.action;
    return { doing, by: intent.actor, since: new Date(intent.openedAt) };
  }
  const batch = await deps.store.batches.get(holder);
  if (!batch) return undefined;
  const doing = `applying a plan of ${batch.total} ${batch.total === 1 ? 'change' : 'changes'}`;
  return { doing, by: batch.actor, since: new Date(batch.updatedAt) };
}

/** `17:02`: a change holds its locks for minutes at most, so the day goes without saying. */
const clockTime = (at: Date): string => at.toISOString().slice(11, 16);

function forHowLong(now: Date, since: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / MINUTE_MS));
  if (minutes === 0) return 'under a minute';
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
