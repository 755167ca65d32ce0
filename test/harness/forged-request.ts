// A request to the app's Slack URL on a raw socket, for what no HTTP client sends: a signature that is well formed
// but not Slack's, a body sent in part and left hanging, a body streamed past any limit. The test (or the bench)
// writes the rest of the body itself, and reads the app's answer once the app closes the connection.
import { connect, type Socket } from 'node:net';

export interface Answer {
  /** The status the app answered with, if it answered before the connection closed. */
  status?: number;
  head: string;
}

/** A request to the Slack URL on a raw socket, its body sent as the test says; its answer once the app closes it. */
export interface RawRequest {
  socket: Socket;
  answered: Promise<Answer>;
  /** Whether the app has written anything back yet. */
  answeredYet(): boolean;
  /** Whether the connection has closed. */
  closedYet(): boolean;
}

/** Opens a connection and sends the head of a forged request: a well-formed signature that is not Slack's. */
export function forged(
  eventsUrl: string,
  head: Record<string, string>,
  body: Buffer | string = '',
): Promise<RawRequest> {
  const url = new URL(eventsUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const received: Buffer[] = [];
    const answeredYet = () => received.length > 0;
    let closed = false;
    const closedYet = () => closed;
    const answered = new Promise<Answer>((resolveAnswer) => {
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.on('close', () => {
        closed = true;
        const text = Buffer.concat(received).toString('latin1');
        const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
        resolveAnswer({
          status: status === undefined ? undefined : Number(status),
          head: text.split('\r\n\r\n')[0] ?? '',
        });
      });
    });
    // Writes into a connection the app has closed fail; the answer is what counts.
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      const headers = {
        host: url.host,
        'content-type': 'application/x-www-form-urlencoded',
        'x-slack-signature': `v0=${'0'.repeat(64)}`,
        'x-slack-request-timestamp': String(Math.floor(Date.now() / 1000)),
        ...head,
      };
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
      socket.write(`POST ${url.pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
      if (body.length > 0) socket.write(body);
      resolve({ socket, answered, answeredYet, closedYet });
    });
    socket.once('error', reject);
  });
}
