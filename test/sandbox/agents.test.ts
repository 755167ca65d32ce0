import { describe, expect, it } from 'vitest';
import { expectError, useSandbox } from './helpers.js';

const api = useSandbox();

describe('sandbox agents', () => {
  it('creates an active agent with an id and a one-time agent_token', async () => {
    const agent = await api().createAgent('Front desk', 'en-GB');
    expect(agent).toEqual({
      id: expect.stringMatching(/^agt_[0-9a-f]{16}$/),
      name: 'Front desk',
      status: 'active',
      agent_token: expect.stringMatching(/^atk_[0-9a-f]{32}$/),
    });
  });

  it('gives every agent its own id and token', async () => {
    const first = await api().createAgent('One');
    const second = await api().createAgent('Two');
    expect(second.id).not.toBe(first.id);
    expect(second.agent_token).not.toBe(first.agent_token);
  });

  it('lists active agents in creation order, without agent_token', async () => {
    const first = await api().createAgent('One');
    const second = await api().createAgent('Two', 'de-DE');
    const answer = await api().call('GET', '/v1/ai-agents');
    expect(answer.json).toEqual({
      data: [
        { id: first.id, name: 'One', status: 'active' },
        { id: second.id, name: 'Two', status: 'active' },
      ],
    });
    expect(answer.text).not.toContain('agent_token');
    expect(answer.text).not.toContain(first.agent_token);
  });

  it('deletes an agent, which then leaves the list, and a second delete is 404', async () => {
    const kept = await api().createAgent('Kept');
    const doomed = await api().createAgent('Doomed');
    const deleted = await api().call('DELETE', `/v1/ai-agents/${doomed.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ id: doomed.id, status: 'deleted' });
    expect(await api().listAgents()).toEqual([{ id: kept.id, name: 'Kept', status: 'active' }]);
    expectError(await api().call('DELETE', `/v1/ai-agents/${doomed.id}`), 404, 'agent_not_found');
  });

  it('answers 404 for an agent id it never issued', async () => {
    const info = expectError(await api().call('DELETE', '/v1/ai-agents/agt_0000000000000000'), 404, 'agent_not_found');
    expect(info).toContain('agt_0000000000000000');
  });

  it('rejects a create request with 400 naming each field at fault', async () => {
    const missing = await api().call('POST', '/v1/ai-agents', { body: { name: 'No language' } });
    expect(expectError(missing, 400, 'validation_error')).toBe('language: is required');

    const badLocale = await api().call('POST', '/v1/ai-agents', { body: { name: 'Bad', language: 'english' } });
    expect(expectError(badLocale, 400, 'validation_error')).toMatch(/^language: must be a locale tag/);

    const both = await api().call('POST', '/v1/ai-agents', { body: { name: '   ', language: 'en_US' } });
    const info = expectError(both, 400, 'validation_error');
    expect(info).toContain('name: must not be empty');
    expect(info).toContain('language: must be a locale tag');

    const notAnObject = await api().call('POST', '/v1/ai-agents', { body: ['name', 'language'] });
    expect(expectError(notAnObject, 400, 'validation_error')).toMatch(/^body: /);

    for (const name of ['Desk\n:white_check_mark: Released *+14155550100*', 'Front\tdesk', 'a\u2028b', 'a\u202eb']) {
      const control = await api().call('POST', '/v1/ai-agents', { body: { name, language: 'en-US' } });
      expect(expectError(control, 400, 'validation_error')).toMatch(
        /^name: must be one line of plain text, without line breaks, tabs or other control characters \(found /,
      );
    }

    expect(await api().listAgents()).toEqual([]);
  });

  it('stores the name trimmed', async () => {
    const agent = await api().createAgent('  Support line  ');
    expect(agent.name).toBe('Support line');
    expect((await api().listAgents())[0]?.name).toBe('Support line');
  });
});
