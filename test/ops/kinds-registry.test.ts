// The registry of kinds of change (src/ops/kinds/index.ts): a kind removed again leaves no trace in it, nor in the
// shapes the store reads records with, nor in the roles, so that a test file can add a kind of its own and leave the
// app's kinds alone to the files after it in its worker.
import { expect, it } from 'vitest';
import { agentDelete } from '../../src/ops/kinds/agent-delete.js';
import { isKind, KIND, kindNames, registerKind } from '../../src/ops/kinds/index.js';
import { roleOfKind } from '../../src/ops/kinds/roles.js';

// Another name on a kind of the app's: only its registration is used here, never its methods.
const retire = { ...agentDelete, name: 'agent.retire' } as unknown as typeof agentDelete;

it('forgets a kind removed again, everywhere it was registered, so that its name may be given again', () => {
  const forget = registerKind(retire);
  expect([isKind('agent.retire'), roleOfKind('agent.retire')]).toEqual([true, 'admin']);
  forget();
  expect(isKind('agent.retire')).toBe(false);
  expect(() => roleOfKind('agent.retire')).toThrow(/No kind of change is named agent.retire/);
  expect(kindNames()).toEqual(Object.values(KIND));
  // The record's shape went too: the store would refuse a second shape for a name it still knew.
  registerKind(retire)();
});

it("refuses a kind whose command words are another kind's", () => {
  const command = { words: ['retire'], args: 'AGENT', summary: 'Retire an agent', parse: () => ({ error: 'no' }) };
  const forget = registerKind({ ...retire, command } as typeof retire);
  const again = { ...retire, name: 'agent.retire.again', command: { ...command, words: ['Retire'] } };
  expect(() => registerKind(again as typeof retire)).toThrow(/The command retire is agent.retire's already/);
  forget();
  expect(kindNames()).toEqual(Object.values(KIND));
});

it("leaves the app's kinds alone when another is removed", () => {
  registerKind(retire)();
  expect(() => registerKind(agentDelete)).toThrow(/registered already/);
  expect(kindNames()).toEqual(Object.values(KIND));
});
