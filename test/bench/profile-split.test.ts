// The CPU split of bench:profile charges each sample to the first part named walking up from it: SQLite to its
// caller's part through the store's SQL seam, the HTTP and Postgres clients to rows of their own, idle time to none.
import { describe, expect, it } from 'vitest';
import { type CpuProfile, splitProfile } from '../../bench/profile-split.js';

/** A module of the app's compiled dist/, by its URL as V8 names it. */
const inDist = (module: string) => new URL(`../../dist/${module}`, import.meta.url).href;

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({
  id,
  callFrame: { functionName, url },
  children,
});

/** A profile of `(root)` over the given frames, each sampled for the microseconds given. */
function profile(nodes: CpuProfile['nodes'], samples: [id: number, us: number][]): CpuProfile {
  return { nodes, samples: samples.map(([id]) => id), timeDeltas: samples.map(([, us]) => us) };
}

describe('splitProfile', () => {
  it("charges SQLite's work under the delivery key's recording to the delivery key, through the SQL seam", () => {
    const split = splitProfile(
      profile(
        [
          frame(1, '(root)', '', [2, 6, 7]),
          frame(2, 'processTicksAndRejections', 'node:internal/process/task_queues', [3]),
          frame(3, '#record', 'file:///app/src/store/delivery-keys.ts', [4]),
          frame(4, 'all', 'file:///app/src/store/sqlite-sql.ts', [5]),
          frame(5, 'all', ''),
          frame(6, '(idle)', ''),
          frame(7, 'parseMessage', 'file:///app/node_modules/pg-protocol/dist/parser.js'),
        ],
        [
          [5, 300],
          [6, 5000],
          [7, 200],
        ],
      ),
    );
    expect(split.get('delivery key')).toBeCloseTo(0.3);
    expect(split.get('store (other than the delivery key)')).toBe(0);
    expect(split.get('Postgres client (pg), reading answers')).toBeCloseTo(0.2);
    const total = [...split.values()].reduce((sum, ms) => sum + ms, 0);
    expect(total).toBeCloseTo(0.5);
  });

  it("charges undici to the HTTP client wherever it is called from, and node's own work under nothing else to node", () => {
    const split = splitProfile(
      profile(
        [
          frame(1, '(root)', '', [2, 4]),
          frame(2, 'postToResponseUrl', 'file:///app/src/slack/respond.ts', [3]),
          frame(3, 'request', 'file:///app/node_modules/undici/lib/api/api-request.js'),
          frame(4, 'parserOnIncoming', 'node:_http_server'),
        ],
        [
          [3, 100],
          [4, 100],
        ],
      ),
    );
    expect(split.get('HTTP client (undici), sending and reading')).toBeCloseTo(0.1);
    expect(split.get("the answer's post")).toBe(0);
    expect(split.get('node: HTTP, sockets, timers')).toBeCloseTo(0.1);
  });
  it('names the parts of the compiled dist/ the bench runs by the sources they were built from', () => {
    const split = splitProfile(
      profile(
        [
          frame(1, '(root)', '', [2, 4]),
          frame(2, '#record', inDist('store/delivery-keys.js'), [3]),
          frame(3, 'all', inDist('store/postgres-sql.js')),
          frame(4, 'agentsMessage', inDist('slack/views/agents.js')),
        ],
        [
          [3, 100],
          [4, 200],
        ],
      ),
    );
    expect(split.get('delivery key')).toBeCloseTo(0.1);
    expect(split.get('the answer: ops and views')).toBeCloseTo(0.2);
  });
});
