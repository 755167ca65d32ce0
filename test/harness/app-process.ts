// The app as its own process, started as `npm start` starts it (`node --import tsx src/main.ts`) with only the
// environment a test gives it: for what only a process shows (signals, crashes, exit codes, what reaches stderr).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcess {
  child: ChildProcess;
  /** Resolves with the "Voice Ops is ready" log entry; rejects, quoting the output, when the process exits first. */
  ready: Promise<Record<string, unknown>>;
  exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
  /** The JSON lines written to stdout so far, parsed. */
  entries(): Record<string, unknown>[];
}

export function parseJsonLine(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function spawnApp(env: Record<string, string>): AppProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, ...env },
  });
  let stdout = '';
  let stderr = '';
  const entries = () =>
    stdout.split('\n').flatMap((line): Record<string, unknown>[] => {
      const entry = parseJsonLine(line);
      return entry ? [entry] : [];
    });
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stdout.includes('Voice Ops is ready')) return;
      const entry = entries().find((candidate) => candidate.msg === 'Voice Ops is ready');
      if (entry) resolve(entry);
    });
    void exited.then(({ code, signal }) =>
      reject(new Error(`the app exited (${code ?? signal}) before it was ready:\n${stdout}${stderr}`)),
    );
  });
  // A test that expects the process to fail before it is ready need not await `ready`.
  ready.catch(() => undefined);
  return { child, ready, exited, stdout: () => stdout, stderr: () => stderr, entries };
}
