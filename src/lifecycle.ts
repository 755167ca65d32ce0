// The one way out of the process, taken once. A signal stops the app gracefully and exits 0; anything fatal is logged
// as one line, then stops it and exits 1. A stop waits at most SHUTDOWN_TIMEOUT_MS, then logs what still runs.
import { errorField, type Logger } from './log.js';
import type { RunningVoiceOps } from './server.js';

export interface LifecycleOptions {
  logger: Logger;
  shutdownTimeoutMs: number;
  /** Secret values to cut out of an error's text before it is logged. */
  secrets: string[];
  /** Waits, at most `timeoutMs`, for the log lines still queued: the last ones say how the stop went. */
  flushLogs?: (timeoutMs: number) => Promise<void>;
}

export class Lifecycle {
  readonly #options: LifecycleOptions;
  #app: Pick<RunningVoiceOps, 'stop' | 'underWay'> | undefined;
  #leaving = false;
  #exitCode = 0;

  constructor(options: LifecycleOptions) {
    this.#options = options;
  }

  /** From now on, the way out stops the app first. */
  started(app: Pick<RunningVoiceOps, 'stop' | 'underWay'>): void {
    this.#app = app;
  }

  signal(signal: NodeJS.Signals): void {
    if (this.#leaving) return;
    this.#options.logger.info({ signal }, 'stopping: finishing changes under way');
    void this.#leave();
  }

  fatal(reason: string, error?: unknown): void {
    this.#options.logger.fatal(this.#errorFields(error), `Voice Ops cannot go on (${reason}): stopping`);
    this.#exitCode = 1;
    if (!this.#leaving) void this.#leave();
  }

  /** Logged when the app failed to start: there is nothing to stop. */
  startFailed(sentence: string, error?: unknown): never {
    this.#options.logger.fatal(this.#errorFields(error), `Voice Ops could not start: ${sentence}`);
    process.exit(1);
  }

  async #leave(): Promise<void> {
    this.#leaving = true;
    const app = this.#app;
    if (!app) process.exit(this.#exitCode);
    const { logger, shutdownTimeoutMs } = this.#options;
    const started = Date.now();
    const deadline = setTimeout(() => {
      logger.error(
        app.underWay(),
        `SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs} ms) passed with work still running: exiting without it`,
      );
      process.exit(1);
    }, shutdownTimeoutMs);
    try {
      await app.stop();
    } catch (error) {
      logger.error(this.#errorFields(error), 'the app could not stop cleanly');
      process.exit(1);
    }
    clearTimeout(deadline);
    logger.info('stopped');
    // A log reader that stalls may keep what is left of the stop's time, and no more.
    await this.#options.flushLogs?.(Math.max(0, shutdownTimeoutMs - (Date.now() - started)));
    process.exit(this.#exitCode);
  }

  #errorFields(error: unknown): { err?: ReturnType<typeof errorField> } {
    return error === undefined ? {} : { err: errorField(error, this.#options.secrets) };
  }
}
