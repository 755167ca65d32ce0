// The Home tab, published again after anything that changes what it shows.
import type { Person, ReadOptions } from '../ops/api.js';
import type { SlackDeps } from './deps.js';
import { FIRST_HOME_POSITION, type HomePosition } from './paging.js';
import { HOME_AGENTS_PAGE_SIZE, HOME_NUMBERS_PAGE_SIZE, homeView } from './views/home.js';

/** By default where the user last left it; a failure here never spoils the change that triggered it. */
export async function refreshHome(
  deps: SlackDeps,
  person: Person,
  position?: HomePosition,
  options: ReadOptions = {},
): Promise<void> {
  const { userId } = person;
  try {
    const at = position ?? deps.homePositions.get(userId) ?? FIRST_HOME_POSITION;
    const [agents, numbers, role] = await Promise.all([
      deps.ops.listAgents({ page: at.agentsPage, size: HOME_AGENTS_PAGE_SIZE, ...options }),
      deps.ops.listNumbers({
        page: at.numbersPage,
        filter: at.numbersFilter,
        size: HOME_NUMBERS_PAGE_SIZE,
        ...options,
      }),
      deps.ops.roleOf(person),
    ]);
    // A list that shrank meanwhile shows its last page: that is where the user now is.
    const shown: HomePosition = {
      agentsPage: agents.ok ? agents.page.page : at.agentsPage,
      numbersPage: numbers.ok ? numbers.page.page : at.numbersPage,
      numbersFilter: at.numbersFilter,
    };
    const failed = [agents, numbers].find((listed) => !listed.ok);
    const view = homeView({
      agents: agents.ok ? agents.page : undefined,
      numbers: numbers.ok ? numbers.page : undefined,
      role,
      sandbox: deps.sandbox,
      inForce: await deps.ops.policiesInForce(userId),
      position: shown,
      error: failed && !failed.ok ? failed.message : undefined,
    });
    deps.homePositions.set(userId, shown);
    await deps.slack.ui.views.publish({ user_id: userId, view });
  } catch (error) {
    deps.logger.warn({ err: error, userId }, 'could not publish the Home tab');
  }
}
