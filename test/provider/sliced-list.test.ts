// The account's lists are read a slice at a time; what they give, and how a bad answer is reported, is what the
// whole-body check gives.
import { describe, expect, it } from 'vitest';
import { checkResponse } from '../../src/provider/contract.js';
import { purchasedNumber, purchasedNumberList } from '../../src/provider/schemas.js';
import { checkListResponse } from '../../src/provider/sliced-list.js';

const read = (text: string) =>
  checkListResponse(purchasedNumberList, purchasedNumber, text, 'GET /list, HTTP 200', 200);
const wholly = (text: string) => checkResponse(purchasedNumberList, text, 'GET /list, HTTP 200', 200);

const numbers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `pn_${i}`,
    number: `+1415555${String(i).padStart(4, '0')}`,
    status: 'active',
  }));

describe('checkListResponse', () => {
  it.each([
    ['many items, over several slices', JSON.stringify({ data: numbers(1234) })],
    ['no items', '{ "data" : [ ] }'],
    [
      'other fields before and after, with brackets, quotes and escapes in strings',
      JSON.stringify({
        meta: { note: 'a "data": [ ] inside, and \\ ] } ,' },
        data: [{ id: 'pn_"1"', number: '+14155550100', status: 'act]ive', extra: [1, { data: [2] }] }],
        next: null,
      }),
    ],
    [
      'spaces and line breaks between items',
      '{\n  "data": [\n    {"id": "a", "number": "+1", "status": "x"} ,\n {"id": "b", "number": "+2", "status": "y"}\n  ]\n}',
    ],
  ])('gives what the whole-body check gives: %s', async (_, text) => {
    expect(await read(text)).toEqual(wholly(text));
  });

  it.each([
    ['an item of the wrong shape', JSON.stringify({ data: [...numbers(700), { id: 7, number: '+1', status: 'x' }] })],
    ['no data', '{"items": []}'],
    ['data that is not an array', '{"data": {"id": "a"}}'],
    ['a body that is not JSON', '{"data": [{"id": "a", "number": "+1", "status": "x"}]'],
    ['text after the object', '{"data": []} and more'],
    ['an array at the top', '[{"data": []}]'],
  ])('reports %s as the whole-body check does', async (_, text) => {
    const expected = (() => {
      try {
        wholly(text);
      } catch (error) {
        return error;
      }
      throw new Error('the whole-body check accepted it');
    })();
    await expect(read(text)).rejects.toEqual(expected);
  });
});
