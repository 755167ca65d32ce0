// After a buy, the search it came from is shown again as the provider now has it: the bought number is no longer
// for sale, so no list the person is looking at keeps a Buy button for it.
import { type Actor, subjectOf } from '../ops/api.js';
import type { SlackDeps } from './deps.js';
import { type ShownSearch, searchRequestOf } from './paging.js';
import type { Answer } from './surfaces.js';
import { searchModal } from './views/modals.js';
import { searchResultsMessage } from './views/numbers.js';

/** Buy was pressed in the person's last search (Buy buttons are only in search results). */
export function buyPressed(deps: SlackDeps, userId: string, number: string): void {
  const shown = deps.searches.get(userId);
  if (shown) deps.searches.set(userId, { ...shown, buying: number });
}

function boughtFromSearch(deps: SlackDeps, actor: Actor, answer: Answer): ShownSearch | undefined {
  // Buy is the only button of a search's results: the change done on the number it was pressed for is its buy.
  if (answer.kind !== 'done') return undefined;
  const shown = deps.searches.get(actor.userId);
  return shown?.buying === subjectOf(answer.done.change) ? shown : undefined;
}

async function searchAgain(deps: SlackDeps, actor: Actor, shown: ShownSearch) {
  const [searched, role] = await Promise.all([
    deps.ops.searchNumbers(searchRequestOf(shown.position)),
    deps.ops.roleOf(actor),
  ]);
  return { searched, role };
}

/** After a buy's outcome, the same search page again, so the list stays where the person is looking and stays true. */
export async function withSearchAgain(deps: SlackDeps, actor: Actor, answer: Answer): Promise<Answer> {
  const shown = boughtFromSearch(deps, actor, answer);
  if (!shown || shown.viewId || answer.kind !== 'done') return answer;
  const { searched, role } = await searchAgain(deps, actor, shown);
  if (!searched.ok) return answer;
  return { ...answer, after: searchResultsMessage({ page: searched.page, position: shown.position, role }) };
}

/** A buy confirmed over the search form: the form underneath is rewritten without the number just bought. */
export async function refreshSearchForm(deps: SlackDeps, actor: Actor, answer: Answer): Promise<void> {
  const shown = boughtFromSearch(deps, actor, answer);
  if (!shown?.viewId) return;
  const { searched, role } = await searchAgain(deps, actor, shown);
  const result = searched.ok ? { page: searched.page } : { error: searched.message };
  const view = searchModal({ role, position: shown.position, privateMetadata: shown.privateMetadata ?? '', ...result });
  await deps.slack.ui.views.update({ view_id: shown.viewId, view }).catch((error: unknown) => {
    deps.logger.warn({ err: error, userId: actor.userId }, 'could not rewrite the search form after a buy');
  });
}
