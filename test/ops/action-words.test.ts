// Audit actions in words: the app's own, one it has no words for, and text the log holds that names an object's own
// properties, which must read as itself rather than reach the table's prototype.
import { expect, it } from 'vitest';
import { actionWords } from '../../src/ops/action-words.js';

it('says an action as asked or as done, and any other text as its own words', () => {
  expect(actionWords('number.buy', false)).toBe('buy');
  expect(actionWords('number.buy', true)).toBe('bought');
  expect(actionWords('number.note', true)).toBe('number note');
  expect(actionWords('constructor', false)).toBe('constructor');
  expect(actionWords('__proto__', true)).toBe('  proto  ');
});
