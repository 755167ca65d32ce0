import type { SlackDeps } from '../deps.js';
import { refreshHome } from '../home.js';
import { EVENT } from '../ids.js';
import type { Listeners } from '../router.js';
import { requesterIn } from '../who-asked.js';

export function registerHome(app: Listeners, deps: SlackDeps): void {
  app.event(EVENT.appHomeOpened, async ({ event, context }) => {
    // Opening the tab reads the provider afresh; paging within it then reuses those lists.
    if (event.tab === 'home') await refreshHome(deps, requesterIn(context), undefined, { fresh: true });
  });
}
