// The playground: the real app (startVoiceOps: the same Bolt listeners, operations, store and embedded sandbox)
// behind a local stand-in for Slack, and a web page where its people, two teams among them, use it as they would use
// Slack. main.ts starts it when no Slack credential is configured; nothing of it is loaded otherwise.
import type { Config } from '../config.js';
import { type RunningVoiceOps, type StartOptions, startVoiceOps } from '../server.js';
import { startAfresh } from '../store/start-afresh.js';
import { startFakeSlack } from './fake-slack.js';
import { Interactions } from './interactions.js';
import { bindPage, servePage } from './page-server.js';
import {
  ADMIN,
  ANNOUNCEMENTS,
  CHANNELS,
  OPS_CHANNEL,
  PEOPLE,
  SALES,
  SALES_CHANNEL,
  SUPPORT,
  SUPPORT_CHANNEL,
  seededRole,
  TEAMS,
} from './people.js';
import { APP_NAME } from './render.js';
import { markNewDatabases, removeFiles, resetBy, startOverPlan } from './start-over.js';
import { BOT_USER_ID, TEAM_ID } from './workspace.js';

type Options = Pick<StartOptions, 'logger' | 'onFatal' | 'droppedLogLines'>;

/** The app as a team would configure it, pointed at the stand-in for Slack at `apiUrl`. */
function startApp(config: Config, apiUrl: string, options: Options): Promise<RunningVoiceOps> {
  // The playground's people seed its roles (its operators through their teams) and its channels, which Ada may change
  // in Settings; the guardrails the configuration sets stay locked, so that they can be tried here too, with its
  // channels wherever it names one.
  const { changeChannels, admins, operators, approvers, announcementsChannel, approvalsChannel, ...rules } =
    config.settings.locked;
  const locked = { ...rules, ...(changeChannels?.length ? { changeChannels: [OPS_CHANNEL.id] } : {}) };
  const lockedBy = Object.fromEntries(Object.entries(config.settings.lockedBy).filter(([name]) => name in locked));
  return startVoiceOps(
    {
      ...config,
      slack: { ...config.slack, apiUrl },
      provider: undefined,
      settings: {
        locked,
        lockedBy,
        seed: {
          admins: [ADMIN.id],
          operators: TEAMS.map((team) => team.id),
          // Each team's channel shows its own numbers and agents, and what is bought there is the team's.
          channelBindings: [
            { channel: SALES_CHANNEL.id, owner: SALES.id },
            { channel: SUPPORT_CHANNEL.id, owner: SUPPORT.id },
          ],
          announcementsChannel: ANNOUNCEMENTS.id,
          approvalsChannel: ANNOUNCEMENTS.id,
        },
      },
    },
    { ...options, readyLevel: 'debug' },
  );
}

export async function startPlayground(config: Config, options: Options) {
  const { logger } = options;
  const signingSecret = config.slack.signingSecret;
  if (!config.playground || !signingSecret) throw new Error('the configuration is not a playground one');
  const pageFront = await bindPage(config.playground.port);
  const slack = await startFakeSlack({ strict: true }).catch(async (error: unknown) => {
    await pageFront.close();
    throw error;
  });
  try {
    const { workspace } = slack;
    workspace.addPerson({ id: BOT_USER_ID, name: APP_NAME });
    for (const person of PEOPLE) workspace.addPerson(person);
    for (const channel of CHANNELS) workspace.addChannel(channel);
    for (const team of TEAMS) workspace.addGroup(team);
    markNewDatabases(config);
    let app = await startApp(config, slack.apiUrl, options);
    const endpoint = (running: RunningVoiceOps) => ({ eventsUrl: `${running.url}/slack/events`, signingSecret });
    const interactions = new Interactions(slack, endpoint(app), logger);

    /** Does nothing, saying why, where that would remove what is not the playground's alone. */
    const restart = async (userId: string) => {
      const data = startOverPlan(config);
      if (!data.ok) {
        logger.info({ reason: data.reason }, 'Playground: Start over refused, nothing removed');
        return { ok: false as const, reason: data.reason };
      }
      await app.stop();
      await removeFiles(data.files);
      if (data.afresh) await startAfresh(data.afresh, resetBy(userId));
      markNewDatabases(config);
      workspace.forget();
      slack.functions.forget();
      slack.workflows.forget();
      app = await startApp(config, slack.apiUrl, options);
      interactions.reconnect(endpoint(app));
      logger.info(
        { removed: data.files, keptAuditLog: data.afresh },
        'Playground: started over with no numbers, agents or messages, its audit log kept',
      );
      return { ok: true as const };
    };

    // Two clicks (or two tabs) at once start over once.
    let restarting: ReturnType<typeof restart> | undefined;
    const startOver = (userId: string) => {
      restarting ??= restart(userId).finally(() => {
        restarting = undefined;
      });
      return restarting;
    };

    const page = servePage({
      front: pageFront,
      probesUrl: () => app.probesUrl,
      workspace,
      // While Start over replaces the app, the roles it seeds stand in.
      roleOf: (userId) => app.ops.roleOf({ userId, teamId: TEAM_ID }).catch(() => seededRole(userId)),
      workflows: slack.workflows,
      interactions,
      startOver,
      whatStartOverDoes: () => {
        const plan = startOverPlan(config);
        return { ok: plan.ok, says: plan.says };
      },
      logger,
    });
    logger.info(
      { url: page.url },
      `Playground: open ${page.url} to use Voice Ops as its people would in Slack, with no Slack workspace. ` +
        'Slack is a local stand-in and the provider is the sandbox: nothing real is bought or routed. ' +
        `Probes and metrics: ${page.url}healthz, ${page.url}readyz, ${page.url}metrics.`,
    );
    return {
      /** The page: `http://127.0.0.1:PORT/`. */
      url: page.url,
      /** The app as it runs now: Start over replaces it. */
      get app(): RunningVoiceOps {
        return app;
      },
      slack,
      /** What the app is still doing, for a stop that runs out of time. */
      underWay: () => app.underWay(),
      /** Closes the page, stops the app (letting changes under way finish), then the stand-in for Slack. */
      stop: async (): Promise<void> => {
        await page.close();
        await app.stop();
        await slack.close();
      },
    };
  } catch (error) {
    await pageFront.close();
    await slack.close();
    throw error;
  }
}

export type RunningPlayground = Awaited<ReturnType<typeof startPlayground>>;
