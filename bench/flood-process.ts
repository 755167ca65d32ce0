// The flood of bench/flood.ts, in a process of its own, so that pushing megabytes into sockets never delays the
// parent's signed commands or their timing. Requests: `start` (URL) begins the flood, `halt` ends it and answers
// the counts, `stop` exits.
import { Agent, request } from 'undici';
import { serveParent } from './ipc.js';

const BODY = Buffer.alloc(3 * 1024 * 1024, '[');
const IN_FLIGHT = 32;

const counts = { sent: 0, refused: 0, cut: 0 };
let flooding = false;
let floods: Promise<void>[] = [];
const fresh = new Agent({ pipelining: 0, connections: IN_FLIGHT });

async function floodOne(url: string): Promise<void> {
  while (flooding) {
    counts.sent++;
    try {
      const answer = await request(`${url}/slack/events`, {
        method: 'POST',
        body: BODY,
        headers: { 'content-type': 'application/json', connection: 'close' },
        dispatcher: fresh,
      });
      await answer.body.dump();
      if (answer.statusCode === 401) counts.refused++;
    } catch {
      // The app answered before the whole body went out, and closed the connection.
      counts.cut++;
    }
  }
}

serveParent({}, async (message) => {
  if (message.op === 'start') {
    flooding = true;
    floods = Array.from({ length: IN_FLIGHT }, () => floodOne(String(message.url)));
    return null;
  }
  if (message.op === 'halt') {
    flooding = false;
    await Promise.all(floods);
    return counts;
  }
  if (message.op === 'stop') {
    await fresh.close();
    return null;
  }
  throw new Error(`unknown request ${message.op}`);
});
