import { describe, expect, it } from 'vitest';
import { fail } from '../../src/ops/types.js';
import type { Finished } from '../../src/ops/work.js';
import { CALLBACK } from '../../src/slack/ids.js';
import {
  cancelledMessage,
  doneMessage,
  doneModal,
  failureMessage,
  failureModal,
  unchangedMapMessage,
  workingMessage,
} from '../../src/slack/views/results.js';
import { createdAgent, HOSTILE, HOSTILE_ESCAPED, rendered, unescapedMarkup } from './support.js';

describe('doneMessage', () => {
  it('says what each change did', () => {
    const said = (change: Finished['change']) => doneMessage({ change }).text;
    expect(said({ action: 'number.buy', number: { id: 'pn_1', number: '+14155550100' } })).toBe(
      ':white_check_mark: Bought *+14155550100* (US, id `pn_1`).',
    );
    expect(said({ action: 'number.release', number: { id: 'pn_1', number: '+14155550100' } })).toBe(
      ':white_check_mark: Released *+14155550100* (US, id `pn_1`).',
    );
    expect(said({ action: 'agent.delete', agent: { id: 'ag_1', name: 'Support bot' } })).toBe(
      ':white_check_mark: Deleted agent *Support bot* (`ag_1`).',
    );
    expect(said({ action: 'routing.map', number: '+14155550100', agent: { id: 'ag_1', name: 'Support bot' } })).toBe(
      ':white_check_mark: Routed *+14155550100* (US) to *Support bot* (`ag_1`).',
    );
  });

  it('adds the note, escaped', () => {
    const shown = doneMessage({
      change: { action: 'number.buy', number: { id: 'pn_1', number: '+1415' } },
      note: HOSTILE,
    });
    expect(rendered(shown)).toContain(HOSTILE_ESCAPED);
    expect(unescapedMarkup(shown)).toEqual([]);
  });

  it('shows the token to the creator of an agent', () => {
    const agent = createdAgent();
    const done: Finished = {
      change: { action: 'agent.create', agent: { id: agent.id, name: agent.name, language: 'en-US' } },
      createdAgent: agent,
    };
    expect(rendered(doneMessage(done))).toContain(agent.agent_token);
    expect(rendered(doneModal(done))).toContain(agent.agent_token);
  });
});

describe('doneModal', () => {
  it('is a read-only info modal with the same words', () => {
    const done: Finished = { change: { action: 'number.buy', number: { id: 'pn_1', number: '+14155550100' } } };
    const view = doneModal(done);
    expect(view.callback_id).toBe(CALLBACK.info);
    expect(view.submit).toBeUndefined();
    expect(view.close?.text).toBe('Close');
    expect(rendered(view)).toContain('Bought *+14155550100*');
  });
});

describe('failureMessage and failureModal', () => {
  it('show the message escaped behind a warning', () => {
    const failure = fail('provider', `The provider said: ${HOSTILE}`);
    expect(failureMessage(failure).text).toBe(`:warning: The provider said: ${HOSTILE_ESCAPED}`);
    const view = failureModal('Could not buy', failure);
    expect(view.title.text).toBe('Could not buy');
    expect(view.callback_id).toBe(CALLBACK.info);
    expect(unescapedMarkup(view)).toEqual([]);
  });
});

describe('cancelledMessage', () => {
  it('says that nothing changed, and what was kept', () => {
    expect(cancelledMessage({ kind: 'number.buy', number: '+14155550100' }).text).toContain(
      'Cancelled: nothing changed. *+14155550100* was not bought.',
    );
    const kept = cancelledMessage({ kind: 'agent.delete', agentId: 'ag_1', agentName: HOSTILE });
    expect(kept.text).toContain(`Agent *${HOSTILE_ESCAPED}* (\`ag_1\`) was not deleted.`);
    expect(unescapedMarkup(kept)).toEqual([]);
  });
});

describe('workingMessage and unchangedMapMessage', () => {
  it('say that work is under way', () => {
    expect(workingMessage('Buying +14155550100…').text).toBe(':hourglass_flowing_sand: Buying +14155550100…');
  });

  it('say that a number already routes to the agent, escaped', () => {
    const shown = unchangedMapMessage('+14155550100', HOSTILE);
    expect(shown.text).toBe(
      `:information_source: *+14155550100* already routes to *${HOSTILE_ESCAPED}*: nothing to change.`,
    );
  });
});

describe('failureMessage naming a command', () => {
  it('shows the command as typed, never in look-alike backticks', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    // Every failure an operation writes names commands plainly: escaped, a backtick would read as a look-alike.
    const files = readdirSync('src/ops', { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      expect(readFileSync(`src/ops/${file}`, 'utf8'), file).not.toMatch(/fail\([^;]*\\?`\/voice/s);
    }
    const text = rendered(
      failureMessage(fail('already_used', 'That confirmation was already used. /voice audit shows it.')),
    );
    expect(text).toContain('/voice audit shows it.');
    expect(text).not.toContain('\u02CB');
  });
});
