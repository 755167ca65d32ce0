import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
});

function runCli(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/cli.ts'], {
    cwd: process.cwd(),
    env: { ...process.env, SANDBOX_DATABASE_PATH: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

async function waitFor<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('npm run sandbox', () => {
  it('prints the URL, the key and a warning, serves the API, and exits 0 on SIGTERM', async () => {
    const cli = runCli({ SANDBOX_PORT: '0', SANDBOX_API_KEY: 'cli-test-key' });
    const url = await waitFor(() => /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(cli.stdout())?.[1], 'the printed URL');
    await waitFor(() => (cli.stdout().includes('nothing real is bought') ? true : undefined), 'the warning');
    expect(cli.stdout()).toContain('API key: cli-test-key');

    const refused = await fetch(`${url}/ai-agents`);
    expect(refused.status).toBe(401);
    const answer = await fetch(`${url}/list-available-numbers?region=CA&limit=2`, {
      headers: { authorization: 'Bearer cli-test-key' },
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: unknown[] }).data).toHaveLength(2);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toEqual([0, null]);
    expect(cli.stderr()).toContain('"path":"/v1/list-available-numbers"');
    expect(cli.stderr()).not.toContain('cli-test-key');
  });

  it('exits 1 naming the variable when the configuration is invalid', async () => {
    const cli = runCli({ SANDBOX_PORT: 'not-a-port' });
    const [code] = await cli.exited;
    expect(code).toBe(1);
    expect(cli.stderr()).toContain('SANDBOX_PORT');
  });
});
