// Who the app is in Slack, learnt from auth.test: its workspace (and Enterprise Grid org), its bot user. Read at
// start so that a wrong token stops the app with a plain sentence, and again while Slack is unreachable, so that
// readiness tells the truth and requests are never handled for a workspace the app does not know.
import type { Logger } from '../log.js';
import { slackErrorCode, type WebClient } from './clients.js';

export interface Identity {
  teamId: string;
  teamName?: string;
  enterpriseId?: string;
  /** Installed across an Enterprise Grid org: requests from any of its workspaces belong. */
  enterpriseInstall: boolean;
  botUserId?: string;
  botId?: string;
}

export type SlackStatus = { ok: true; identity: Identity } | { ok: false; reason: string; refused: boolean };

/** Slack answered, and said no: the token is wrong, revoked or lacks what auth.test needs. */
export class SlackRefusedToken extends Error {
  override readonly name = 'SlackRefusedToken';
  constructor(readonly code: string) {
    super(
      `Slack refused SLACK_BOT_TOKEN (${code}): copy the Bot User OAuth Token (xoxb-…) from the app's ` +
        'OAuth & Permissions page, and reinstall the app if it was removed.',
    );
  }
}

// Codes that mean Slack could not answer now, rather than that it refused the token.
const TRANSIENT = new Set([
  'timeout',
  'unreachable',
  'http_error',
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

// How often an unreachable Slack is tried, and how long an answer of auth.test is trusted (a failure only briefly).
export interface Recheck {
  retry: number;
  ok: number;
  failed: number;
}
const RECHECK_MS: Recheck = { retry: 5_000, ok: 10_000, failed: 1_000 };

export class SlackIdentity {
  readonly #client: WebClient;
  readonly #logger: Logger;
  readonly #recheck: Recheck;
  #identity?: Identity;
  #last?: { status: SlackStatus; at: number };
  #checking?: Promise<SlackStatus>;
  #retry?: NodeJS.Timeout;
  #outage = false;

  constructor(client: WebClient, logger: Logger, recheck: Recheck = RECHECK_MS) {
    this.#client = client;
    this.#logger = logger;
    this.#recheck = recheck;
  }

  /** The identity once auth.test has answered; undefined while Slack has never been reached. */
  get current(): Identity | undefined {
    return this.#identity;
  }

  /**
   * At start: a refused token throws SlackRefusedToken; an unreachable Slack is logged in plain words and tried
   * again in the background until it answers, while readiness fails.
   */
  async connect(): Promise<void> {
    const status = await this.check();
    if (status.ok) return;
    if (status.refused) throw new SlackRefusedToken(status.reason);
    this.#scheduleRetry();
  }

  /** auth.test, at most once every few seconds and once at a time: readiness probes may come often. */
  check(): Promise<SlackStatus> {
    const last = this.#last;
    if (last && Date.now() - last.at < (last.status.ok ? this.#recheck.ok : this.#recheck.failed)) {
      return Promise.resolve(last.status);
    }
    this.#checking ??= this.#authTest().then((status) => {
      this.#checking = undefined;
      this.#last = { status, at: Date.now() };
      this.#report(status);
      return status;
    });
    return this.#checking;
  }

  stop(): void {
    clearTimeout(this.#retry);
  }

  async #authTest(): Promise<SlackStatus> {
    try {
      const answer = await this.#client.auth.test();
      const identity: Identity = {
        teamId: answer.team_id ?? '',
        teamName: answer.team,
        enterpriseId: answer.enterprise_id || undefined,
        enterpriseInstall: answer.is_enterprise_install === true,
        botUserId: answer.user_id,
        botId: answer.bot_id,
      };
      this.#identity = identity;
      return { ok: true, identity };
    } catch (error) {
      const reason = slackErrorCode(error);
      return { ok: false, reason, refused: !TRANSIENT.has(reason) };
    }
  }

  /** One line when Slack goes away and one when it is back, not one per check. */
  #report(status: SlackStatus): void {
    if (status.ok && this.#outage) {
      this.#outage = false;
      this.#logger.info({ team: status.identity.teamId }, 'Slack is reachable again: the app is ready');
    } else if (!status.ok && !this.#outage) {
      this.#outage = true;
      const what = status.refused
        ? `Slack refused the bot token (${status.reason})`
        : `Slack's Web API cannot be reached (${status.reason})`;
      this.#logger.warn(
        { reason: status.reason },
        `${what}: requests are not handled and /readyz answers 503 until it answers again`,
      );
    }
  }

  #scheduleRetry(): void {
    this.#retry = setTimeout(() => {
      void this.check().then((status) => {
        if (!status.ok) this.#scheduleRetry();
      });
    }, this.#recheck.retry);
    this.#retry.unref();
  }
}

/** Whether a request's workspace is the app's: the same team, or any team of the org the app is installed across. */
export function belongsTo(identity: Identity, request: { teamId?: string; enterpriseId?: string }): boolean {
  if (identity.enterpriseInstall)
    return Boolean(identity.enterpriseId) && request.enterpriseId === identity.enterpriseId;
  return request.teamId === identity.teamId;
}
