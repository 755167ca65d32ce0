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
    env: { ...process.env, SANDBOX_DATABASE_PATH: '', SANDBOX_PORT: '0', ...env },
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
  // Generous: tsx compiles the CLI first, which a machine busy with other work can make slow.
  const deadline = Date.now() + 45_000;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Shell words as sh reads them: '…' literal, "…" with backslash escapes and $VARIABLES expanded, \x escaped, and
 * adjacent pieces joined into one word.
 */
function shellWords(line: string, variables: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (text: string) => text.replace(/\$([A-Z_]+)/g, (_, name: string) => variables[name] ?? '');
  for (let i = 0; i < line.length; i++) {
    const char = line[i] ?? '';
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (char === '"') {
      let text = '';
      for (i += 1; i < line.length && line[i] !== '"'; i++) text += line[i] === '\\' ? line[++i] : line[i];
      word = (word ?? '') + expand(text);
    } else if (char === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Replays a printed `curl` line (method, URL, headers, body) with fetch. */
async function replayCurl(line: string, variables: Record<string, string>): Promise<Response> {
  const [command, ...args] = shellWords(line.trim(), variables);
  expect(command).toBe('curl');
  let method = 'GET';
  let url = '';
  let body: string | undefined;
  const headers: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-sS') continue;
    if (arg === '-X') method = args[++i] ?? '';
    else if (arg === '-H') {
      const [name = '', ...value] = (args[++i] ?? '').split(': ');
      headers[name] = value.join(': ');
    } else if (arg === '-d') body = args[++i];
    else url = arg;
  }
  return fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
}

describe('npm run sandbox', () => {
  it('prints the URL, the key and a warning, serves the API, and exits 0 on SIGTERM', async () => {
    const cli = runCli({ SANDBOX_API_KEY: 'cli-test-key' });
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

  it('prints its eight endpoints, each with a curl line that works when pasted in order', async () => {
    const cli = runCli({ SANDBOX_API_KEY: "it's-a-key" });
    await waitFor(() => (cli.stdout().includes('/ai-agents/{id}') ? true : undefined), 'the endpoints');
    const curlLines = cli
      .stdout()
      .split('\n')
      .filter((line) => line.trim().startsWith('curl '));
    const endpoints = cli
      .stdout()
      .split('\n')
      .filter((line) => /^ {2}(GET|POST|DELETE) /.test(line));
    expect(endpoints.map((line) => line.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual([
      'POST /ai-agents',
      'GET /ai-agents',
      'GET /list-available-numbers',
      'POST /buy-phone-number',
      'GET /purchased-phone-numbers',
      'POST /phone-number-routing',
      'DELETE /release-phone-number/{id}',
      'DELETE /ai-agents/{id}',
    ]);
    expect(curlLines).toHaveLength(8);

    const variables: Record<string, string> = {};
    const answers: unknown[] = [];
    for (const [index, line] of curlLines.entries()) {
      const response = await replayCurl(line, variables);
      expect(response.status, line).toBeLessThan(300);
      const answer = (await response.json()) as { id?: string };
      answers.push(answer);
      if (index === 0) variables.AGENT_ID = answer.id ?? '';
      if (index === 3) variables.NUMBER_ID = answer.id ?? '';
    }
    expect(answers.at(5)).toMatchObject({ agent_id: variables.AGENT_ID, status: 'connected' });
    expect(answers.slice(6)).toEqual([
      { id: variables.NUMBER_ID, status: 'released' },
      { id: variables.AGENT_ID, status: 'deleted' },
    ]);
    cli.child.kill('SIGTERM');
    await cli.exited;
  });

  it('exits 1 naming the variable when the configuration is invalid', async () => {
    const cli = runCli({ SANDBOX_PORT: 'not-a-port' });
    const [code] = await cli.exited;
    expect(code).toBe(1);
    expect(cli.stderr()).toContain('SANDBOX_PORT');
  });
});
