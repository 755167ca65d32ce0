// The parent's side of the child processes: each child is a TypeScript file run with `node --import tsx`, talks
// JSON over the IPC channel (one `ready` message, then numbered requests and replies), and has its output
// collected instead of printed, so that a warning a child logs is counted and shown once, not mixed into the table.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A request a child answers: `op` names it, the rest are its arguments. */
export interface Request {
  op: string;
  [key: string]: unknown;
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** Output lines a child wrote (stdout and stderr): how many, and the first ones. */
export interface ChildOutput {
  count: number;
  lines: string[];
}

export interface Child<Ready> {
  /** What the child sent as `{ type: 'ready', ... }`. */
  ready: Ready;
  process: ChildProcess;
  /** Sends a request and resolves with the child's answer. */
  request<T>(request: Request, timeoutMs?: number): Promise<T>;
  /** Output lines the child wrote (stdout and stderr), oldest first, at most `maxLines` kept. */
  output(): ChildOutput;
  /** Asks the child to stop (`{ op: 'stop' }`) and waits for it to exit; kills it if it does not. */
  stop(): Promise<void>;
}

export interface SpawnOptions {
  /** Extra node flags, e.g. `--expose-gc`, `--cpu-prof`. */
  nodeFlags?: string[];
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  maxLines?: number;
}

/** Builds dist/ when a source is newer than it, as `npm start` does: the app processes run it (bench/app-process.ts). */
export function buildDist(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: REPO_ROOT, stdio: 'inherit' });
}

/** Starts `node --import tsx <file> ...args` with an IPC channel and waits for its `ready` message. */
export async function spawnChild<Ready>(
  file: string,
  args: string[],
  options: SpawnOptions = {},
): Promise<Child<Ready>> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', 'tsx', file, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
  });
  const maxLines = options.maxLines ?? 20;
  const lines: string[] = [];
  let count = 0;
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      count++;
      if (lines.length < maxLines) lines.push(line.length > 400 ? `${line.slice(0, 400)}…` : line);
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);

  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let nextId = 0;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exited = true;
      for (const waiter of pending.values()) waiter.reject(new Error(`${file} exited (${code ?? signal})`));
      pending.clear();
      resolve();
    });
  });

  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${file} was not ready within ${options.readyTimeoutMs ?? 30_000} ms`)),
      options.readyTimeoutMs ?? 30_000,
    );
    child.on('message', (message: { type?: string } & Partial<Reply>) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message as Ready);
        return;
      }
      if (typeof message.id !== 'number') return;
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.ok) waiter?.resolve(message.value);
      else waiter?.reject(new Error(message.error ?? 'the child failed'));
    });
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${file} exited before it was ready:\n${lines.join('\n')}`));
    });
  });

  const request = <T>(message: Request, timeoutMs = 60_000): Promise<T> => {
    if (exited) return Promise.reject(new Error(`${file} has exited`));
    const id = ++nextId;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${file}: no answer to ${message.op} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      child.send({ ...message, id });
    });
  };

  return {
    ready,
    process: child,
    request,
    output: () => ({ count, lines: [...lines] }),
    async stop() {
      if (exited) return;
      await request({ op: 'stop' }, 15_000).catch(() => undefined);
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

type Handler = (request: Request) => unknown;

/** The child's side: announces `ready`, then answers requests with `handler` (which may be async). */
export function serveParent(ready: Record<string, unknown>, handler: Handler): void {
  const send = (message: unknown, then?: () => void) => process.send?.(message, undefined, {}, () => then?.());
  process.on('message', (message: Request & { id: number }) => {
    // After `stop` has been answered, the process ends: the handler has closed what it started.
    const then = message.op === 'stop' ? () => process.exit(0) : undefined;
    void (async () => {
      try {
        send({ id: message.id, ok: true, value: await handler(message) }, then);
      } catch (error) {
        send({ id: message.id, ok: false, error: error instanceof Error ? error.stack : String(error) }, then);
      }
    })();
  });
  // The parent's death ends the child too, instead of leaving a server behind.
  process.on('disconnect', () => process.exit(0));
  send({ type: 'ready', ...ready });
}

/** CPU time this process has used, in ms (user + system). */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
