// A WAL checkpoint syncs the file to disk (5–15 ms); left to SQLite it runs on the event loop, and every ack due waits.
// Here a worker thread checkpoints past CHECKPOINT_WAL_BYTES (PASSIVE: never waiting for the app), the app's own
// connection only far later, as a backstop.
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Four times SQLite's default: a page written again and again is copied once a checkpoint, so fewer cost less. */
export const CHECKPOINT_WAL_BYTES = 16 * 1024 * 1024;
/** An emptied WAL is cut back below CHECKPOINT_WAL_BYTES, so that its size says again when a checkpoint is due. */
export const WAL_FILE_LIMIT_BYTES = 1024 * 1024;
/** The app's connection checkpoints by itself only past this, should the worker fall behind or fail. */
export const BACKSTOP_CHECKPOINT_PAGES = 8_000;
/** How often the WAL's size is looked at: a stat, far cheaper than the checkpoint it saves a request. */
const CHECK_EVERY_MS = 250;
/** After a failure, the next worker is tried no sooner than this: a lasting fault is told twice a minute, not more. */
const RETRY_AFTER_MS = 30_000;

// The worker's whole program, in plain JavaScript so that it runs alike from dist/ and from the TypeScript sources.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
parentPort.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
`;

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

export interface CheckpointOptions {
  /** Told when a checkpoint or its worker fails (the backstop still bounds the WAL). */
  onError: (error: Error) => void;
  walBytes?: number;
  checkEveryMs?: number;
  retryAfterMs?: number;
}

/** Checkpoints the WAL of the database at `path` from a worker thread, started the first time the WAL is large. */
export class WalCheckpoints {
  readonly #path: string;
  readonly #options: Required<CheckpointOptions>;
  readonly #timer: NodeJS.Timeout;
  #worker?: Worker;
  #running?: Promise<void>;
  #retryAt = 0;

  constructor(path: string, options: CheckpointOptions) {
    this.#path = path;
    this.#options = {
      walBytes: CHECKPOINT_WAL_BYTES,
      checkEveryMs: CHECK_EVERY_MS,
      retryAfterMs: RETRY_AFTER_MS,
      ...options,
    };
    this.#timer = setInterval(() => this.#checkSize(), this.#options.checkEveryMs);
    this.#timer.unref();
  }

  #checkSize(): void {
    if (this.#running !== undefined || Date.now() < this.#retryAt) return;
    this.#running = this.#checkpointIfDue()
      .catch((error: unknown) => {
        this.#retryAt = Date.now() + this.#options.retryAfterMs;
        this.#options.onError(error instanceof Error ? error : new Error(String(error)));
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  async #checkpointIfDue(): Promise<void> {
    const wal = statSync(`${this.#path}-wal`, { throwIfNoEntry: false });
    if (!wal || wal.size < this.#options.walBytes) return;
    const worker = this.#worker ?? this.#start();
    await new Promise<void>((resolve, reject) => {
      const settle = (failure?: Error) => {
        worker.off('message', onAnswer).off('error', settle).off('exit', onExit);
        if (failure) reject(failure);
        else resolve();
      };
      const onAnswer = (answer: { ok: boolean; message?: string }) =>
        settle(answer.ok ? undefined : new Error(`The WAL checkpoint of ${this.#path} failed: ${answer.message}`));
      const onExit = () => settle(new Error(`The WAL checkpoint worker of ${this.#path} stopped`));
      worker.on('message', onAnswer).on('error', settle).on('exit', onExit);
      worker.postMessage('checkpoint');
    });
  }

  #start(): Worker {
    const worker = new Worker(WORKER, { eval: true, workerData: { driver, path: this.#path } });
    worker.unref();
    // Whenever it fails or ends, between checkpoints too, it is not asked again: the next checkpoint starts another.
    const forget = () => {
      if (this.#worker === worker) this.#worker = undefined;
    };
    worker.on('error', forget).on('exit', forget);
    this.#worker = worker;
    return worker;
  }

  /** Stops looking, lets a checkpoint under way end, and ends the worker. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }
}
