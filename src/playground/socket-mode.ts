// Slack's Socket Mode on the fake Slack's server: single-use `ws://…/link/?ticket=…` URLs, `hello`, envelopes settled
// by acks. A test can also ask for a reconnect, drop the socket, ping the app, or stop answering its pings.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import type { AppResponse, PostOptions } from './signing.js';

export type EnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** Why Slack sends `disconnect`: a routine refresh, a connection about to close, or Socket Mode turned off. */
export type DisconnectReason = 'refresh_requested' | 'warning' | 'link_disabled';

export interface Envelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

export interface Ack {
  envelopeId: string;
  /** What the app answered with: `{}` for a bare ack, else e.g. `{ response_action: 'errors', errors }`. */
  payload: Record<string, unknown>;
  /** Time from sending the envelope to its ack, in ms: Slack gives up after 3000. */
  ms: number;
}

export interface SendOptions {
  /** Sets `retry_attempt` and `retry_reason: timeout`, as Slack's redeliveries of an event do. */
  retryAttempt?: number;
  /** How long to wait for the ack; default 5000. */
  timeoutMs?: number;
}

interface Connection {
  socket: WebSocket;
  greeted: boolean;
}

interface AwaitedAck {
  connection: Connection;
  resolve(payload: Record<string, unknown>): void;
  reject(error: Error): void;
}

const ackMessage = z.object({ envelope_id: z.string(), payload: z.record(z.string(), z.unknown()).optional() });
const jsonObject = z.record(z.string(), z.unknown());

const LINK_PATH = '/link/';

/** Where Slack puts a request in Socket Mode: events are JSON, interactions a `payload` field, commands a form. */
export function envelopeFor(
  body: string,
  contentType: string,
): { type: EnvelopeType; payload: Record<string, unknown> } {
  if (contentType.startsWith('application/json'))
    return { type: 'events_api', payload: jsonObject.parse(JSON.parse(body)) };
  const form = new URLSearchParams(body);
  const interaction = form.get('payload');
  if (interaction !== null) return { type: 'interactive', payload: jsonObject.parse(JSON.parse(interaction)) };
  return { type: 'slash_commands', payload: Object.fromEntries(form) };
}

/** Serves Socket Mode on `server` (which must listen on 127.0.0.1) through its `upgrade` event. */
export function attachSocketMode(server: Server, options: { appId: string }) {
  const wss = new WebSocketServer({ noServer: true, autoPong: false });
  const tickets = new Set<string>();
  const connections: Connection[] = [];
  const awaited = new Map<string, AwaitedAck>();
  const greetingWaiters = new Set<{ count: number; resolve(): void }>();
  let greeted = 0;
  let pings = 0;
  let answeringPings = true;

  function onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'ws://fake-slack');
    const ticket = url.searchParams.get('ticket') ?? '';
    // Every other upgrade, and a ticket used twice, is refused as Slack refuses a stale URL.
    if (url.pathname !== LINK_PATH || !tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => accept(ws));
  }
  server.on('upgrade', onUpgrade);

  function accept(socket: WebSocket): void {
    const connection: Connection = { socket, greeted: false };
    connections.push(connection);
    socket.on('message', (data, isBinary) => onMessage(data, isBinary));
    socket.on('ping', (data) => {
      pings += 1;
      if (answeringPings) socket.pong(data);
    });
    socket.on('close', () => {
      connections.splice(connections.indexOf(connection), 1);
      for (const [id, ack] of awaited) {
        if (ack.connection !== connection) continue;
        awaited.delete(id);
        ack.reject(new Error(`Socket Mode: the connection closed before envelope ${id} was acknowledged`));
      }
    });
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: connections.length,
        debug_info: { host: 'fake-slack', approximate_connection_time: 18_060 },
        connection_info: { app_id: options.appId },
      }),
    );
    connection.greeted = true;
    greeted += 1;
    for (const waiter of greetingWaiters) {
      if (greeted < waiter.count) continue;
      greetingWaiters.delete(waiter);
      waiter.resolve();
    }
  }

  function onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    let message: unknown;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    const parsed = ackMessage.safeParse(message);
    if (!parsed.success) return;
    const ack = awaited.get(parsed.data.envelope_id);
    if (!ack) return;
    awaited.delete(parsed.data.envelope_id);
    ack.resolve(parsed.data.payload ?? {});
  }

  function newest(): Connection {
    const open = connections.filter((connection) => connection.greeted && connection.socket.readyState === 1);
    const connection = open.at(-1);
    if (!connection) throw new Error('Socket Mode: the app has no open connection');
    return connection;
  }

  /** Sends an envelope on the newest open connection and resolves with its ack; rejects on timeout or close. */
  function send(type: EnvelopeType, payload: Record<string, unknown>, sendOptions: SendOptions = {}): Promise<Ack> {
    const { retryAttempt, timeoutMs = 5000 } = sendOptions;
    const envelope: Envelope = {
      envelope_id: randomUUID(),
      type,
      payload,
      // Slack takes a response in the ack for commands, view submissions and option requests.
      accepts_response_payload:
        type === 'slash_commands' || (type === 'interactive' && payload.type !== 'block_actions'),
      ...(retryAttempt === undefined ? {} : { retry_attempt: retryAttempt, retry_reason: 'timeout' }),
    };
    const started = performance.now();
    return new Promise<Ack>((resolve, reject) => {
      const connection = newest();
      const timer = setTimeout(() => {
        awaited.delete(envelope.envelope_id);
        reject(new Error(`Socket Mode: no ack for ${type} envelope ${envelope.envelope_id} within ${timeoutMs} ms`));
      }, timeoutMs);
      awaited.set(envelope.envelope_id, {
        connection,
        resolve: (ackPayload) => {
          clearTimeout(timer);
          resolve({ envelopeId: envelope.envelope_id, payload: ackPayload, ms: performance.now() - started });
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      connection.socket.send(JSON.stringify(envelope));
    });
  }

  return {
    /** The answer to `apps.connections.open`: a fresh single-use URL on this server. */
    open(): { ok: true; url: string } {
      const ticket = randomUUID();
      tickets.add(ticket);
      const { port } = server.address() as AddressInfo;
      return { ok: true, url: `ws://127.0.0.1:${port}${LINK_PATH}?ticket=${ticket}&app_id=${options.appId}` };
    },
    /** How many connections were greeted with `hello` so far. */
    connections: () => greeted,
    /** Whether a greeted connection is open now. */
    connected: () => connections.some((connection) => connection.greeted && connection.socket.readyState === 1),
    /** Resolves once `count` connections in all have been greeted (`connections() + 1` waits for the next one). */
    waitForConnection(count: number, timeoutMs = 10_000): Promise<void> {
      if (greeted >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          greetingWaiters.delete(waiter);
          reject(new Error(`Socket Mode: ${greeted} connections within ${timeoutMs} ms, waited for ${count}`));
        }, timeoutMs);
        greetingWaiters.add(waiter);
      });
    },
    send,
    /** An HTTP body (payloads.ts) as its envelope, answered as the HTTP receiver would: 200 and the ack's payload. */
    async deliver(body: string, postOptions: PostOptions = {}): Promise<AppResponse> {
      const { contentType = 'application/x-www-form-urlencoded', retryNum, ...http } = postOptions;
      const unsupported = Object.keys(http).filter((key) => http[key as keyof typeof http] !== undefined);
      if (unsupported.length > 0) throw new Error(`Socket Mode has no ${unsupported.join(', ')}: nothing is signed`);
      const { type, payload } = envelopeFor(body, contentType);
      const ack = await send(type, payload, retryNum === undefined ? {} : { retryAttempt: retryNum });
      const answered = Object.keys(ack.payload).length > 0;
      return {
        status: 200,
        body: answered ? JSON.stringify(ack.payload) : '',
        ...(answered ? { json: ack.payload } : {}),
        headers: {},
        ms: ack.ms,
      };
    },
    /** Slack's `disconnect` message: the app is expected to close this connection and open another. */
    requestReconnect(reason: DisconnectReason): void {
      newest().socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }));
    },
    /** Destroys the newest connection's socket without a close frame, as a failing network or load balancer does. */
    drop(): void {
      newest().socket.terminate();
    },
    /** Pings the newest connection; resolves with its pong. */
    ping(timeoutMs = 5000): Promise<void> {
      const { socket } = newest();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`Socket Mode: no pong within ${timeoutMs} ms`)), timeoutMs);
        socket.once('pong', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.ping();
      });
    },
    /** Pings received from the app so far (it pings to check that the link is alive). */
    pingsReceived: () => pings,
    /** Whether the app's pings get a pong (default true); false makes the link look dead to the app. */
    answerPings(answer: boolean): void {
      answeringPings = answer;
    },
    /** Closes every connection and fails every ack still awaited. */
    close(): void {
      server.off('upgrade', onUpgrade);
      for (const connection of [...connections]) connection.socket.terminate();
      wss.close();
    },
  };
}
