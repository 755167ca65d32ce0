import type { App } from '@slack/bolt';
import { refreshHome, type SlackDeps } from '../flows.js';
import { EVENT } from '../ids.js';

export function registerHome(app: App, deps: SlackDeps): void {
  app.event(EVENT.appHomeOpened, async ({ event }) => {
    // Opening the tab reads the provider afresh; paging within it then reuses those lists.
    if (event.tab === 'home') await refreshHome(deps, event.user, undefined, { fresh: true });
  });
}
