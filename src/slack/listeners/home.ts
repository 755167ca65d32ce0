import { refreshHome } from '../home.js';
import { EVENT } from '../ids.js';
import type { ListenerRouter } from '../router.js';
import { requesterIn } from '../who-asked.js';

export function registerHome(router: ListenerRouter): void {
  router.event(EVENT.appHomeOpened, async ({ event, context }, deps) => {
    // Opening the tab reads the provider afresh; paging within it then reuses those lists.
    if (event.tab === 'home') await refreshHome(deps, requesterIn(context), undefined, { fresh: true });
  });
}
