import { refreshHome } from '../home.js';
import { EVENT } from '../ids.js';
import type { Listeners } from '../router.js';
import { requesterIn } from '../who-asked.js';

export function registerHome(app: Listeners): void {
  app.event(EVENT.appHomeOpened, async ({ event, context }, deps) => {
    // Opening the tab reads the provider afresh; paging within it then reuses those lists.
    if (event.tab === 'home') await refreshHome(deps, requesterIn(context), undefined, { fresh: true });
  });
}
