import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, parseGivenSettings, parseSandboxConfig, secretValues } from '../src/config.js';
import { parsePolicyFile } from '../src/policy-file.js';

const minimal = { SLACK_BOT_TOKEN: 'xoxb-1-2', SLACK_SIGNING_SECRET: 'secret' };

function problems(env: Record<string, string>): string {
  try {
    parseConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected the configuration to be rejected');
}

describe('configuration', () => {
  it('needs only the Slack credentials, and defaults the rest', () => {
    const config = parseConfig(minimal);
    expect(config.slack.port).toBe(3000);
    expect(config.provider).toBeUndefined();
    expect(config.databasePath).toBe('data/voice-ops.db');
    expect(config.providerOptions).toEqual({ timeoutMs: 10_000, cursorParam: 'cursor' });
    expect(config.settings).toEqual({ locked: {}, lockedBy: {}, seed: {} });
    expect(config.logLevel).toBe('info');
    expect(config.shutdownTimeoutMs).toBe(10_000);
  });

  it('keeps the store in the SQLite file unless DATABASE_URL names a Postgres, whose password is a secret', () => {
    expect(parseConfig(minimal).database).toEqual({ kind: 'sqlite', path: 'data/voice-ops.db' });
    expect(parseConfig(minimal).leaseTtlMs).toBe(30_000);
    const url = 'postgresql://ops:p%40ss%2Fw0rd@db.internal:5432/voiceops?sslmode=require';
    const config = parseConfig({ ...minimal, DATABASE_URL: url, DATABASE_POOL_SIZE: '4', LEASE_TTL_S: '10' });
    expect(config.database).toEqual({ kind: 'postgres', url, poolSize: 4, statementTimeoutMs: 15_000 });
    expect(config.leaseTtlMs).toBe(10_000);
    expect(secretValues(config)).toEqual(expect.arrayContaining(['p@ss/w0rd', 'p%40ss%2Fw0rd']));
    const inQuery = parseConfig({ ...minimal, DATABASE_URL: 'postgres://ops@db/voiceops?password=hunter%252' });
    expect(secretValues(inQuery)).toEqual(expect.arrayContaining(['hunter%2']));

    const message = problems({
      ...minimal,
      DATABASE_URL: 'mysql://ops:hunter2@db/voiceops',
      DATABASE_POOL_SIZE: '0',
      DATABASE_STATEMENT_TIMEOUT_MS: '5',
      LEASE_TTL_S: '1',
    });
    expect(message).toContain('DATABASE_URL must be a postgres:// or postgresql:// URL');
    expect(message).toContain('DATABASE_POOL_SIZE must be a whole number of connections from 1 to 100');
    expect(message).toContain(
      'DATABASE_STATEMENT_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000',
    );
    expect(message).toContain('LEASE_TTL_S must be a whole number of seconds from 2 to 600');
    expect(message).not.toContain('hunter2');
  });

  it('names every missing or malformed variable in one message', () => {
    const message = problems({
      SLACK_APP_TOKEN: 'not-an-app-token',
      PORT: 'eighty',
      VOICE_API_BASE_URL: 'ftp://provider.example/v1',
      VOICE_ADMINS: 'U123,alice',
      NOTIFY_CHANNEL_ID: '#ops',
      LOG_LEVEL: 'loud',
      VOICE_API_TIMEOUT_MS: '5',
      SHUTDOWN_TIMEOUT_MS: 'soon',
    });
    for (const name of [
      'SLACK_BOT_TOKEN',
      'SLACK_APP_TOKEN',
      'PORT',
      'VOICE_API_BASE_URL',
      'VOICE_ADMINS',
      'NOTIFY_CHANNEL_ID',
      'LOG_LEVEL',
      'VOICE_API_TIMEOUT_MS',
      'SHUTDOWN_TIMEOUT_MS',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).toContain('"alice" is not a Slack user or user-group id');
  });

  it('bounds SHUTDOWN_TIMEOUT_MS', () => {
    expect(parseConfig({ ...minimal, SHUTDOWN_TIMEOUT_MS: '2500' }).shutdownTimeoutMs).toBe(2500);
    for (const value of ['50', '600001', '1.5']) {
      expect(problems({ ...minimal, SHUTDOWN_TIMEOUT_MS: value })).toContain(
        'SHUTDOWN_TIMEOUT_MS must be a whole number of milliseconds from 100 to 600000',
      );
    }
  });

  it('locks the guardrails it gives, each with its variable, and names a malformed one', () => {
    const config = parseConfig({
      ...minimal,
      VOICE_BUY_LIMIT: '5/day',
      VOICE_BUY_LIMIT_PER_USER: '2/Week',
      VOICE_CHANGE_CHANNELS: 'C123, G456',
      VOICE_TYPED_RELEASE: 'false',
      VOICE_UNDO_HOURS: '0',
    });
    expect(config.settings.locked).toEqual({
      buyLimit: { count: 5, window: 'day' },
      buyLimitPerUser: { count: 2, window: 'week' },
      changeChannels: ['C123', 'G456'],
      typedRelease: false,
      undoHours: 0,
    });
    expect(config.settings.lockedBy.buyLimit).toEqual({ key: 'VOICE_BUY_LIMIT', where: 'the environment' });
    expect(config.settings.lockedBy.typedRelease).toEqual({ key: 'VOICE_TYPED_RELEASE', where: 'the environment' });
    expect(config.settings.lockedBy.approvalTtlHours).toBeUndefined();
    const message = problems({
      ...minimal,
      VOICE_BUY_LIMIT: 'five',
      VOICE_BUY_LIMIT_PER_USER: '3/month',
      VOICE_CHANGE_CHANNELS: '#ops',
      VOICE_TYPED_RELEASE: 'yes',
    });
    expect(message).toContain('VOICE_BUY_LIMIT must be a count per day or per week, e.g. 5/day or 20/week');
    expect(message).toContain('VOICE_BUY_LIMIT_PER_USER must be a count per day or per week');
    expect(message).toContain('VOICE_CHANGE_CHANNELS "#ops" is not a Slack channel id');
    expect(message).toContain('VOICE_TYPED_RELEASE must be true or false');
  });

  it('reads channel bindings as JSON in the environment and as a list in the file, refusing a channel bound twice', () => {
    const binding = { channel: 'CSALES', owner: 'SSALES', labels: ['team:sales'] };
    const config = parseConfig({ ...minimal, VOICE_CHANNEL_BINDINGS: JSON.stringify([binding]) });
    expect(config.settings.locked.channelBindings).toEqual([binding]);
    expect(config.settings.lockedBy.channelBindings).toEqual({
      key: 'VOICE_CHANNEL_BINDINGS',
      where: 'the environment',
    });
    expect(problems({ ...minimal, VOICE_CHANNEL_BINDINGS: '[{channel: CSALES}' })).toContain(
      'VOICE_CHANNEL_BINDINGS must be JSON',
    );
    const twice = JSON.stringify([binding, { channel: 'CSALES', labels: ['vip'] }]);
    expect(problems({ ...minimal, VOICE_CHANNEL_BINDINGS: twice })).toContain(
      'VOICE_CHANNEL_BINDINGS binds the channel CSALES twice: a channel is bound once',
    );
    expect(problems({ ...minimal, VOICE_CHANNEL_BINDINGS: '[{"channel":"CSALES"}]' })).toContain(
      'binds to no team or label',
    );

    const file = parsePolicyFile('channelBindings:\n  - { channel: CSALES, labels: [vip] }\n', 'p.yml');
    expect(file).toMatchObject({
      problems: [],
      settings: { channelBindings: [{ channel: 'CSALES', labels: ['vip'] }] },
    });
    const bad = parsePolicyFile(
      'channelBindings:\n  - { channel: CSALES }\n  - { channel: CSALES, labels: [x] }\n',
      'p.yml',
    );
    expect(bad.problems.join('\n')).toContain('p.yml: channelBindings');
  });

  it('locks the subscriptions VOICE_SUBSCRIPTIONS gives as JSON, and names a malformed one', () => {
    const sales = { channel: 'CSALES', kinds: ['route'], labels: ['team:sales'], without: [], owners: [], quiet: true };
    const { settings } = parseConfig({ ...minimal, VOICE_SUBSCRIPTIONS: JSON.stringify([sales]) });
    expect(settings.locked).toEqual({ subscriptions: [sales] });
    expect(settings.lockedBy.subscriptions).toEqual({ key: 'VOICE_SUBSCRIPTIONS', where: 'the environment' });
    expect(problems({ ...minimal, VOICE_SUBSCRIPTIONS: '[{channel: CSALES}]' })).toContain(
      'VOICE_SUBSCRIPTIONS must be a JSON list of subscriptions',
    );
    expect(problems({ ...minimal, VOICE_SUBSCRIPTIONS: JSON.stringify([{ ...sales, kinds: ['routes'] }]) })).toContain(
      '0.kinds.0',
    );
  });

  it('sends requests for approval to their channel, else the notify channel, and refuses having neither', () => {
    const approvals = { ...minimal, VOICE_REQUIRE_APPROVAL: 'routing.map, number.buy', VOICE_APPROVAL_TTL_HOURS: '4' };
    expect(parseConfig({ ...approvals, NOTIFY_CHANNEL_ID: 'CNOTE' }).settings.locked).toEqual({
      requireApproval: ['number.buy', 'routing.map'],
      announcementsChannel: 'CNOTE',
      approvalTtlHours: 4,
    });
    expect(
      parseConfig({ ...approvals, NOTIFY_CHANNEL_ID: 'CNOTE', VOICE_APPROVALS_CHANNEL_ID: 'CAPPROVE' }).settings.locked
        .approvalsChannel,
    ).toBe('CAPPROVE');
    expect(problems(approvals)).toContain(
      'VOICE_APPROVALS_CHANNEL_ID is required when VOICE_REQUIRE_APPROVAL is set (or set NOTIFY_CHANNEL_ID)',
    );
    const message = problems({ ...approvals, VOICE_REQUIRE_APPROVAL: 'agent.create', VOICE_APPROVAL_TTL_HOURS: '0' });
    expect(message).toContain('VOICE_REQUIRE_APPROVAL "agent.create" is not one of number.buy');
    expect(message).toContain('VOICE_APPROVAL_TTL_HOURS must be a whole number of hours from 1 to 720');
  });

  it('wants the provider URL to end in its version segment', () => {
    expect(problems({ ...minimal, VOICE_API_BASE_URL: 'https://api.example.com', VOICE_API_KEY: 'k' })).toContain(
      'VOICE_API_BASE_URL must end in /v1',
    );
    expect(
      parseConfig({ ...minimal, VOICE_API_BASE_URL: 'https://api.example.com/v1/', VOICE_API_KEY: 'k' }).provider,
    ).toBeDefined();
  });

  it('asks for the API key with a provider URL, and takes the pair as the real provider', () => {
    expect(problems({ ...minimal, VOICE_API_BASE_URL: 'https://api.example.com/v1' })).toContain(
      'VOICE_API_KEY is required when VOICE_API_BASE_URL is set',
    );
    const config = parseConfig({ ...minimal, VOICE_API_BASE_URL: 'https://api.example.com/v1', VOICE_API_KEY: 'k' });
    expect(config.provider).toEqual({ baseUrl: 'https://api.example.com/v1', apiKey: 'k' });
  });

  it('accepts Socket Mode without a signing secret, and reads role lists', () => {
    const config = parseConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      VOICE_ADMINS: ' U1A, S2B ',
      VOICE_OPERATORS: 'W3C',
    });
    expect(config.slack.appToken).toBe('xapp-1');
    expect(config.settings.locked).toEqual({ admins: ['U1A', 'S2B'], operators: ['W3C'] });
  });

  it('never repeats a secret value in its message', () => {
    const message = problems({ SLACK_BOT_TOKEN: 'not-a-bot-token-s3cr3t', SLACK_APP_TOKEN: 'also-s3cr3t' });
    expect(message).toContain('SLACK_BOT_TOKEN must start with xoxb-');
    expect(message).not.toContain('s3cr3t');
  });

  it('keeps asking for the rest of a half-filled Slack configuration', () => {
    expect(problems({ SLACK_SIGNING_SECRET: 'secret' })).toContain('SLACK_BOT_TOKEN is required (xoxb-…)');
    expect(problems({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: '' })).toContain(
      'SLACK_SIGNING_SECRET is required in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)',
    );
    expect(problems({ SLACK_APP_TOKEN: 'xapp-1' })).toContain('SLACK_BOT_TOKEN is required');
    expect(parseConfig({ ...minimal }).playground).toBeUndefined();
  });

  it('runs the playground with no Slack credential, or only empty ones as in a copied .env.example', () => {
    for (const env of [{}, { SLACK_BOT_TOKEN: '', SLACK_SIGNING_SECRET: '', SLACK_APP_TOKEN: ' ', PORT: '3999' }]) {
      const config = parseConfig(env);
      expect(config.playground).toEqual({ port: 'PORT' in env ? 3999 : 3000 });
      // The app behind the page: HTTP mode on loopback, with credentials made up for this process alone.
      expect(config.slack).toMatchObject({ port: 0, host: '127.0.0.1' });
      expect(config.slack.appToken).toBeUndefined();
      expect(config.slack.botToken).toMatch(/^xoxb-playground-[0-9a-f]{48}$/);
      expect(config.slack.signingSecret).toMatch(/^[0-9a-f]{64}$/);
      expect(config.provider).toBeUndefined();
      expect(config.databasePath).toBe('data/playground/voice-ops.db');
    }
    expect(parseConfig({}).slack.botToken).not.toBe(parseConfig({}).slack.botToken);
    expect(parseConfig({ DATABASE_PATH: '/tmp/x.db' }).databasePath).toBe('/tmp/x.db');
  });

  it('keeps the playground on the sandbox: a provider URL without Slack credentials is refused', () => {
    expect(problems({ VOICE_API_BASE_URL: 'https://api.example.com/v1', VOICE_API_KEY: 'k' })).toContain(
      'VOICE_API_BASE_URL must be empty without Slack credentials: the playground runs on the sandbox only',
    );
  });

  it('reads the sandbox settings without any Slack credentials', () => {
    expect(parseSandboxConfig({})).toEqual({
      port: 4010,
      apiKey: 'sandbox-key',
      databasePath: undefined,
      numbersPerRegion: 55,
      seed: { agents: 0, numbers: 0 },
    });
    expect(() => parseSandboxConfig({ SANDBOX_PORT: '99999' })).toThrow(/SANDBOX_PORT must be a port number/);
  });

  it('sizes and seeds the sandbox from the environment, within what its inventory can hold', () => {
    const sized = parseSandboxConfig({
      SANDBOX_NUMBERS_PER_REGION: '1000',
      SANDBOX_SEED_AGENTS: '1000',
      SANDBOX_SEED_NUMBERS: '10000',
    });
    expect(sized).toMatchObject({ numbersPerRegion: 1000, seed: { agents: 1000, numbers: 10_000 } });
    expect(() => parseSandboxConfig({ SANDBOX_NUMBERS_PER_REGION: '2001' })).toThrow(
      /SANDBOX_NUMBERS_PER_REGION must be at most 2000/,
    );
    expect(() => parseSandboxConfig({ SANDBOX_NUMBERS_PER_REGION: '0' })).toThrow(/at least 1/);
    expect(() => parseSandboxConfig({ SANDBOX_SEED_NUMBERS: 'lots' })).toThrow(/SANDBOX_SEED_NUMBERS must be a whole/);
  });
});

describe('the policy file', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** Writes a policy file in a fresh directory and returns its path. */
  function policyFile(text: string): string {
    dir ??= mkdtempSync(join(tmpdir(), 'voice-ops-policy-'));
    const path = join(dir, 'voice-ops.policy.yml');
    writeFileSync(path, text);
    return path;
  }

  it("locks each setting it gives, with the setting's name in the file; one written empty is locked as none", () => {
    const path = policyFile(
      [
        '# Voice Ops settings',
        'admins: [U1A, S2B]',
        'requireApproval:',
        '  - number.buy',
        'approvalsChannel: CAPPROVE',
        'buyLimit: 5/day',
        'buyLimitPerUser: null',
        'changeChannels:',
        'typedRelease: true',
        'undoHours: 0',
      ].join('\n'),
    );
    const { settings } = parseConfig({ ...minimal, VOICE_POLICY_FILE: path });
    expect(settings.locked).toEqual({
      admins: ['U1A', 'S2B'],
      requireApproval: ['number.buy'],
      approvalsChannel: 'CAPPROVE',
      buyLimit: { count: 5, window: 'day' },
      changeChannels: [],
      typedRelease: true,
      undoHours: 0,
    });
    // A limit written as none is locked too: Slack cannot set one.
    expect('buyLimitPerUser' in settings.locked).toBe(true);
    expect(settings.lockedBy.buyLimitPerUser).toEqual({ key: 'buyLimitPerUser', where: path });
    expect(settings.lockedBy.typedRelease).toEqual({ key: 'typedRelease', where: path });
    expect(settings.lockedBy.operators).toBeUndefined();
    expect(parseGivenSettings({ VOICE_POLICY_FILE: path })).toEqual(settings);
  });

  it('gives way to the environment for a setting both give, and locks it with the variable', () => {
    const path = policyFile('typedRelease: false\nundoHours: 4\n');
    const { settings } = parseConfig({ ...minimal, VOICE_POLICY_FILE: path, VOICE_TYPED_RELEASE: 'true' });
    expect(settings.locked).toEqual({ typedRelease: true, undoHours: 4 });
    expect(settings.lockedBy).toEqual({
      typedRelease: { key: 'VOICE_TYPED_RELEASE', where: 'the environment' },
      undoHours: { key: 'undoHours', where: path },
    });
  });

  it("stops the start with every problem of a malformed file named, by the file and the setting, beside the environment's", () => {
    const path = policyFile(
      [
        'admins: [U1A, alice]',
        'typedRelease: yes',
        'buyLimit: 5/month',
        'approvalTtlHours: 0',
        'requireApproval: [number.buy, agent.create]',
        'announcementsChannel: "#ops"',
        'colour: blue',
      ].join('\n'),
    );
    const message = problems({ ...minimal, VOICE_POLICY_FILE: path, PORT: 'eighty' });
    expect(message).toContain('PORT must be a port number');
    for (const line of [
      `${path}: admins "alice" is not a Slack user or user-group id`,
      `${path}: typedRelease must be true or false`,
      `${path}: buyLimit must be a count per day or per week, e.g. 5/day or 20/week`,
      `${path}: approvalTtlHours must be a whole number of hours from 1 to 720`,
      `${path}: requireApproval "agent.create" is not one of number.buy`,
      `${path}: announcementsChannel must be a channel id (C… or G…)`,
      `${path}: colour is not a setting Voice Ops reads`,
    ]) {
      expect(message).toContain(line);
    }
    expect(problems({ ...minimal, VOICE_POLICY_FILE: policyFile('admins: [U1A]\nadmins: [U2B]\n') })).toMatch(
      /voice-ops\.policy\.yml: Map keys must be unique at line 2/,
    );
    expect(problems({ ...minimal, VOICE_POLICY_FILE: policyFile('- admins\n') })).toContain(
      'must be a mapping of settings by name',
    );
  });

  it('must exist when VOICE_POLICY_FILE names it; without it, a missing default file gives nothing', () => {
    expect(problems({ ...minimal, VOICE_POLICY_FILE: '/nowhere/voice-ops.policy.yml' })).toContain(
      'VOICE_POLICY_FILE names /nowhere/voice-ops.policy.yml, but there is no such file',
    );
    expect(parseConfig({ ...minimal, VOICE_POLICY_FILE: ' ' }).settings).toEqual({
      locked: {},
      lockedBy: {},
      seed: {},
    });
  });

  it("reads the example in the operator's reference as written", () => {
    const section = readFileSync('docs/operating.md', 'utf8').split('### The policy file')[1] ?? '';
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const file = parsePolicyFile(example, 'voice-ops.policy.yml');
    expect(file.problems).toEqual([]);
    expect(file.settings).toMatchObject({
      admins: ['U012ADA', 'S034NIGHTS'],
      buyLimit: { count: 5, window: 'day' },
      typedRelease: true,
      approvalsChannel: undefined,
      channelBindings: [{ channel: 'C012SALES', owner: 'S034SALES', labels: ['team:sales'] }],
    });
    expect(Object.keys(file.settings)).toHaveLength(13);
  });

  it('asks for a channel for approvals, which the environment may give', () => {
    const path = policyFile('requireApproval: [routing.map]\n');
    expect(problems({ ...minimal, VOICE_POLICY_FILE: path })).toContain(
      `${path}: approvalsChannel is required when requireApproval is set (or announcementsChannel)`,
    );
    expect(parseConfig({ ...minimal, VOICE_POLICY_FILE: path, NOTIFY_CHANNEL_ID: 'CNOTE' }).settings.locked).toEqual({
      requireApproval: ['routing.map'],
      announcementsChannel: 'CNOTE',
    });
    const channelInFile = policyFile('announcementsChannel: CNOTE\n');
    expect(
      parseConfig({ ...minimal, VOICE_POLICY_FILE: channelInFile, VOICE_REQUIRE_APPROVAL: 'number.buy' }).settings
        .locked,
    ).toEqual({ requireApproval: ['number.buy'], announcementsChannel: 'CNOTE' });
  });
});
