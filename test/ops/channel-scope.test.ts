// What a channel's binding covers of a change: the thing it changes, and an agent it routes to unless another team's.
import { describe, expect, it } from 'vitest';
import { outsideOf } from '../../src/ops/channel-scope.js';
import type { Tags } from '../../src/store/tags.js';

const SALES = { channel: 'CSALES', owner: 'SSALES' };
const tags = new Map<string, Tags>([
  ['+15550100', { labels: [], owner: 'SSALES' }],
  ['+15550101', { labels: [], owner: 'SSUPPORT' }],
  ['agt_sales', { labels: [], owner: 'SSALES' }],
  ['agt_support', { labels: [], owner: 'SSUPPORT' }],
]);

describe("a channel's binding", () => {
  it('covers a change of its team’s number routed to its own agent or to one nobody owns', () => {
    expect(outsideOf(SALES, ['+15550100', 'agt_sales'], tags)).toBeUndefined();
    expect(outsideOf(SALES, ['+15550100', 'agt_shared'], tags)).toBeUndefined();
  });

  it('leaves out a change of a number it does not cover, even one nobody owns', () => {
    expect(outsideOf(SALES, ['+15550101', 'agt_sales'], tags)).toBe('+15550101');
    expect(outsideOf(SALES, ['+15550199'], tags)).toBe('+15550199');
  });

  it("leaves out a route to another team's agent", () => {
    expect(outsideOf(SALES, ['+15550100', 'agt_support'], tags)).toBe('agt_support');
  });

  it('covers everything outside a bound channel', () => {
    expect(outsideOf(undefined, ['+15550101', 'agt_support'], tags)).toBeUndefined();
  });
});
