// A quiet subscription's digest is claimed (marked posted, its lines taken, in one transaction) before it is posted,
// and only while the background lease holds: posted once at most, however many passes race. A line that no longer
// reads is skipped, and a channel no longer quiet loses the lines it was keeping.
import { expect, it } from 'vitest';
import type { DigestEntry, OpsDeps } from '../../src/ops/api.js';
import { keepForDigests, postDigests } from '../../src/ops/digests.js';
import { forgetUnquieted } from '../../src/ops/unquieted.js';
import type { Subscription } from '../../src/settings-schema.js';
import { NO_TAGS } from '../../src/store/tags.js';
import { useOpsDeps } from '../harness/ops-deps.js';

const QUIET: Subscription = { channel: 'CQUIET', kinds: [], labels: [], without: [], owners: [], quiet: true };
const SALES: Subscription = { ...QUIET, channel: 'CSALESQUIET', labels: ['team:sales'] };
const bed = useOpsDeps({ settings: { subscriptions: [QUIET, SALES] } });

const entry: DigestEntry = {
  actorId: 'U1',
  change: { action: 'settings.change', changes: [{ name: 'approvers', before: [], after: ['U2'] }] },
};
const holds = () => undefined;

/** The deps, with a postDigest that records what it is given, after `during` (which may throw). */
function posting(during: () => Promise<void> = async () => undefined) {
  const { deps } = bed();
  const posts: DigestEntry[][] = [];
  const postDigest = async (_channel: string, entries: DigestEntry[]) => {
    await during();
    posts.push(entries);
  };
  const withPosts: OpsDeps = { ...deps, announcer: { ...deps.announcer, postDigest } };
  return { deps: withPosts, posts };
}

it('is claimed before it is posted: passes racing post it once, and a failed post is not posted again', async () => {
  const { deps, posts } = posting(async () => {
    // While it is posted, its lines are already taken and the channel marked.
    expect(await bed().deps.store.digests.lines(QUIET.channel)).toEqual([]);
  });
  await deps.store.digests.add(QUIET.channel, entry, deps.now());
  await Promise.all([postDigests(deps, holds), postDigests(deps, holds)]);
  expect(posts).toEqual([[entry]]);

  bed().clock.advance(24 * 3600_000);
  await deps.store.digests.add(QUIET.channel, entry, deps.now());
  const failing = posting(async () => {
    throw new Error('Slack is down');
  });
  await postDigests(failing.deps, holds);
  await postDigests(deps, holds);
  expect(posts).toHaveLength(1);
});

it('is not claimed or posted once the background lease may have lapsed', async () => {
  const { deps, posts } = posting();
  await deps.store.digests.add(QUIET.channel, entry, deps.now());
  const lapsed = () => {
    throw new Error('the background lease may have lapsed');
  };
  await expect(postDigests(deps, lapsed)).rejects.toThrow('lapsed');
  expect(posts).toEqual([]);
  expect(await deps.store.digests.lines(QUIET.channel)).toHaveLength(1);
});

it('skips a line that no longer reads, and posts the rest', async () => {
  const { deps, posts } = posting();
  await deps.store.digests.add(QUIET.channel, { batch: { batchId: 'b1' } }, deps.now());
  await deps.store.digests.add(QUIET.channel, entry, deps.now());
  await postDigests(deps, holds);
  expect(posts).toEqual([[entry]]);
});

it('forgets the lines of a channel a settings change leaves no longer quiet, and keeps those of one still quiet', async () => {
  const { deps } = bed();
  const other = { ...QUIET, channel: 'COTHER' };
  await deps.store.digests.add(QUIET.channel, entry, deps.now());
  await deps.store.digests.add(other.channel, entry, deps.now());
  const after = [{ ...QUIET, quiet: false }, other];
  await forgetUnquieted(deps, [{ name: 'subscriptions', before: [QUIET, other], after }]);
  expect(await deps.store.digests.lines(QUIET.channel)).toEqual([]);
  expect(await deps.store.digests.lines(other.channel)).toHaveLength(1);
});

it('keeps for a filtered quiet channel only the parts of a change its filter picks', async () => {
  const { deps } = bed();
  await keepForDigests(deps, 'release', [[{ labels: ['team:sales'] }], [NO_TAGS]], (picked) => ({
    outside: { action: 'settings.change', changes: [{ name: 'approvers', before: [], after: picked.map(String) }] },
  }));
  const [sales] = await deps.store.digests.lines(SALES.channel);
  expect(JSON.parse(sales?.line ?? '')).toMatchObject({ outside: { changes: [{ after: ['0'] }] } });
  const [all] = await deps.store.digests.lines(QUIET.channel);
  expect(JSON.parse(all?.line ?? '')).toMatchObject({ outside: { changes: [{ after: ['0', '1'] }] } });
});
