// Ids travel in Slack buttons and select options, whose values Slack caps at 150 characters: a longer id is refused
// where it enters, before anything is sent, and in the provider's answers, naming the field.
import { afterEach, describe, expect, it } from 'vitest';
import { clientFor, type Recorder, rejection, startRecorder } from './helpers.js';

const FITS = 'a'.repeat(150);
const TOO_LONG = 'a'.repeat(151);

let recorder: Recorder | undefined;
afterEach(async () => {
  await recorder?.close();
  recorder = undefined;
});

describe('ids longer than Slack can carry', () => {
  it('are refused before anything is sent', async () => {
    recorder = await startRecorder(() => ({ body: { id: FITS, status: 'deleted' } }));
    const client = clientFor(recorder);
    for (const call of [
      () => client.deleteAgent(TOO_LONG),
      () => client.releaseNumber(TOO_LONG),
      () => client.mapNumber({ phone_number: '+14155550100', agent_id: TOO_LONG }),
    ]) {
      const error = await rejection(call());
      expect(error.kind).toBe('validation');
      expect(error.message).toContain('at most 150 characters');
    }
    expect(recorder.requests).toEqual([]);
    // At the limit, it goes.
    await expect(client.deleteAgent(FITS)).resolves.toEqual({ id: FITS, status: 'deleted' });
    await client.close();
  });

  it.each([
    ['an agent', '/ai-agents', { data: [{ id: TOO_LONG, name: 'Long', status: 'active' }] }],
    [
      'a purchased number',
      '/purchased-phone-numbers',
      { data: [{ id: TOO_LONG, number: '+14155550100', status: 'active' }] },
    ],
  ])('in the provider’s answer, are a bad response naming the field: %s', async (_what, path, body) => {
    recorder = await startRecorder(() => ({ body }));
    const client = clientFor(recorder);
    const error = await rejection(path === '/ai-agents' ? client.listAgents() : client.listPurchasedNumbers());
    expect(error).toMatchObject({ kind: 'bad_response', field: 'data.0.id' });
    expect(error.message).toContain('at most 150 characters');
    await client.close();
  });
});
