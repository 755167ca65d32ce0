// Slack's own conventions for a Bolt project: the Slack CLI's hooks (so that `slack run` starts the app), and the two
// manifests, Socket Mode and HTTP mode, which must describe the same app, with workflow steps Slack would accept.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { z } from 'zod';
import { STEP_INPUTS } from '../src/slack/step-inputs.js';

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

// A function as Slack's manifest schema declares it for manifests of major version 2: slackapi/manifest-schema,
// schemas/manifest.schema.2.0.0.json, definitions app-manifests.v2.hermes.functions and
// app-manifests.v1.hermes.types.type (no other keys on a function; a parameter needs a type from Slack's list).
const PARAMETER_TYPES = [
  'integer',
  'number',
  'boolean',
  'string',
  'object',
  'array',
  'slack#/types/user_context',
  'slack#/types/user_permission',
  'slack#/types/user_id',
  'slack#/types/channel_id',
  'slack#/types/usergroup_id',
  'slack#/types/timestamp',
  'slack#/types/blocks',
  'slack#/types/credential/oauth2',
  'slack#/types/date',
  'slack#/types/interactivity',
  'slack#/types/rich_text',
  'slack#/types/form_input',
  'slack#/types/form_input_object',
  'slack#/types/message_ts',
  'slack#/types/message_context',
] as const;
const parameter = z.looseObject({
  type: z.enum(PARAMETER_TYPES),
  title: z.string().optional(),
  description: z.string().optional(),
  is_required: z.boolean().optional(),
  is_hidden: z.boolean().optional(),
  hint: z.string().optional(),
});
const parameters = z.looseObject({
  properties: z.record(z.string(), parameter).refine((all) => Object.keys(all).length <= 50),
  required: z.array(z.string()).optional(),
});
const slackFunction = z.strictObject({
  title: z.string(),
  description: z.string(),
  input_parameters: parameters,
  output_parameters: parameters,
});
const manifest = z.looseObject({
  _metadata: z.object({ major_version: z.literal(2) }).loose(),
  functions: z.record(z.string(), slackFunction),
  settings: z.looseObject({
    event_subscriptions: z.looseObject({ bot_events: z.array(z.string()) }),
    function_runtime: z.literal('remote'),
    org_deploy_enabled: z.literal(true),
  }),
});

describe('the workflow steps in the manifests', () => {
  it.each(['manifest.yml', 'manifest.http.yml'])(
    "%s declares each step as Slack's schema asks, with the inputs the app checks",
    async (file) => {
      const declared = manifest.parse(parse(await readFile(file, 'utf8')));
      expect(declared.settings.event_subscriptions.bot_events).toContain('function_executed');
      expect(Object.keys(declared.functions).sort()).toEqual(Object.keys(STEP_INPUTS).sort());
      for (const [callbackId, step] of Object.entries(declared.functions)) {
        const schema = STEP_INPUTS[callbackId as keyof typeof STEP_INPUTS];
        const inputs = step.input_parameters;
        expect(Object.keys(inputs.properties).sort(), callbackId).toEqual(Object.keys(schema.shape).sort());
        // What the manifest requires is what the app cannot do without, and nothing it can.
        const required = Object.entries(schema.shape)
          .filter(([, field]) => !field.safeParse(undefined).success)
          .map(([name]) => name);
        expect([...(inputs.required ?? [])].sort(), callbackId).toEqual(required.sort());
        expect(inputs.properties.user_id?.type, callbackId).toBe('slack#/types/user_id');
        expect(inputs.properties.channel_id?.type, callbackId).toBe('slack#/types/channel_id');
        for (const set of [step.input_parameters, step.output_parameters]) {
          for (const name of set.required ?? []) expect(Object.keys(set.properties), callbackId).toContain(name);
        }
      }
      const outputs = Object.fromEntries(
        Object.entries(declared.functions).map(([id, step]) => [id, Object.keys(step.output_parameters.properties)]),
      );
      // The outputs the app ends its steps with (test/e2e/workflow-steps.test.ts): never an agent token.
      expect(outputs).toEqual({
        buy_numbers: ['numbers', 'count'],
        create_agent: ['agent_id'],
        route_numbers: ['numbers', 'count'],
        release_numbers: ['numbers', 'count'],
        export_routing: ['routing'],
      });
    },
  );
});
