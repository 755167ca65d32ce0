import { describe, expect, it } from 'vitest';
import { expectError, useSandbox } from './helpers.js';

const api = useSandbox();
const NUMBER = '+12125550100';

function mapBody(agentId: string, phoneNumber = NUMBER, routeType = 'ai_agent') {
  return { body: { phone_number: phoneNumber, route_type: routeType, agent_id: agentId } };
}

describe('sandbox routing', () => {
  it('connects a purchased number to an agent', async () => {
    await api().buy(NUMBER);
    const agent = await api().createAgent();
    expect(await api().map(NUMBER, agent.id)).toEqual({
      phone_number: NUMBER,
      route_type: 'ai_agent',
      agent_id: agent.id,
      status: 'connected',
    });
  });

  it('refuses to delete an agent a number routes to, with 409 naming the number', async () => {
    await api().buy(NUMBER);
    const agent = await api().createAgent();
    await api().map(NUMBER, agent.id);
    const info = expectError(await api().call('DELETE', `/v1/ai-agents/${agent.id}`), 409, 'agent_in_use');
    expect(info).toContain(NUMBER);
    expect(await api().listAgents()).toHaveLength(1);
  });

  it('replaces the route when a number is mapped again', async () => {
    await api().buy(NUMBER);
    const first = await api().createAgent('First');
    const second = await api().createAgent('Second');
    await api().map(NUMBER, first.id);
    expect((await api().map(NUMBER, second.id)).agent_id).toBe(second.id);
    expect((await api().call('DELETE', `/v1/ai-agents/${first.id}`)).status).toBe(200);
    expectError(await api().call('DELETE', `/v1/ai-agents/${second.id}`), 409, 'agent_in_use');
  });

  it('drops the route when the number is released, so the agent can then be deleted', async () => {
    const bought = await api().buy(NUMBER);
    const agent = await api().createAgent();
    await api().map(NUMBER, agent.id);
    expect((await api().call('DELETE', `/v1/release-phone-number/${bought.id}`)).status).toBe(200);
    expect((await api().call('DELETE', `/v1/ai-agents/${agent.id}`)).json).toEqual({ id: agent.id, status: 'deleted' });
  });

  it('does not carry a route over to a number bought again after release', async () => {
    const bought = await api().buy(NUMBER);
    const agent = await api().createAgent();
    await api().map(NUMBER, agent.id);
    await api().call('DELETE', `/v1/release-phone-number/${bought.id}`);
    await api().buy(NUMBER);
    expect((await api().call('DELETE', `/v1/ai-agents/${agent.id}`)).status).toBe(200);
  });

  it('answers 409 number_not_purchased for a number never bought or already released', async () => {
    const agent = await api().createAgent();
    const never = await api().call('POST', '/v1/phone-number-routing', mapBody(agent.id));
    expect(expectError(never, 409, 'number_not_purchased')).toContain(NUMBER);
    const bought = await api().buy(NUMBER);
    await api().call('DELETE', `/v1/release-phone-number/${bought.id}`);
    expectError(await api().call('POST', '/v1/phone-number-routing', mapBody(agent.id)), 409, 'number_not_purchased');
  });

  it('answers 404 agent_not_found for an unknown or deleted agent', async () => {
    await api().buy(NUMBER);
    expectError(await api().call('POST', '/v1/phone-number-routing', mapBody('agt_unknown')), 404, 'agent_not_found');
    const agent = await api().createAgent();
    await api().call('DELETE', `/v1/ai-agents/${agent.id}`);
    expectError(await api().call('POST', '/v1/phone-number-routing', mapBody(agent.id)), 404, 'agent_not_found');
  });

  it('accepts only route_type ai_agent', async () => {
    await api().buy(NUMBER);
    const agent = await api().createAgent();
    const answer = await api().call('POST', '/v1/phone-number-routing', mapBody(agent.id, NUMBER, 'sip_trunk'));
    expect(expectError(answer, 400, 'validation_error')).toMatch(/^route_type: must be ai_agent/);
    const missing = await api().call('POST', '/v1/phone-number-routing', { body: { phone_number: NUMBER } });
    const info = expectError(missing, 400, 'validation_error');
    expect(info).toContain('route_type: ');
    expect(info).toContain('agent_id: is required');
  });
});
