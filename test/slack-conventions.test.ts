// Slack's own conventions for a Bolt project: the Slack CLI's hooks (so that `slack run` starts the app), and the two
// manifests, Socket Mode and HTTP mode, which must describe the same app.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const lines = async (file: string) =>
  (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#'));

describe('the Slack CLI project files', () => {
  it('answer get-hooks from the installed @slack/cli-hooks, and start the app with npm start', async () => {
    const hooks = JSON.parse(await readFile('.slack/hooks.json', 'utf8')) as { hooks: Record<string, string> };
    expect(hooks.hooks.start).toBe('npm start');
    const [command = '', ...args] = (hooks.hooks['get-hooks'] ?? '').split(' ');
    const { stdout } = await run(command, args);
    const answered = JSON.parse(stdout) as { runtime: string; hooks: Record<string, string> };
    expect(answered.runtime).toBe('node');
    expect(Object.keys(answered.hooks)).toContain('start');
    const config = JSON.parse(await readFile('.slack/config.json', 'utf8'));
    expect(config).toEqual({ manifest: { source: 'remote' } });
  });
});

describe('the manifests', () => {
  it('describe the same app; the HTTP one adds only its request URLs and turns Socket Mode off', async () => {
    const socket = await lines('manifest.yml');
    const http = await lines('manifest.http.yml');
    const urls = http.filter((line) => line.includes('https://YOUR-HOST/slack/events'));
    expect(urls.map((line) => line.trim().split(':')[0])).toEqual([
      'url',
      'request_url',
      'request_url',
      'message_menu_options_url',
    ]);
    expect(socket).toContain('  socket_mode_enabled: true');
    expect(http).toContain('  socket_mode_enabled: false');
    const shared = (all: string[]) =>
      all.filter((line) => !line.includes('YOUR-HOST') && !line.includes('socket_mode'));
    expect(shared(http)).toEqual(shared(socket));
  });
});
