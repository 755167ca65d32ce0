// Where JSON log lines go when stdout is a pipe or socket: never blocking the event loop, dropped and counted rather
// than waited for, since a stalled log shipper is an everyday event (and pino's destination retries a closed pipe
// forever at exit). A stalled reader costs at most MAX_BUFFERED bytes. A file or terminal is written synchronously.
import { fstatSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import type { DestinationStream } from 'pino';

/** What a stalled reader may hold back before further lines are dropped. */
const MAX_BUFFERED = 1024 * 1024;

export interface LogDestination extends DestinationStream {
  /** Lines that could not be written: the reader stalled past MAX_BUFFERED, or went away. */
  dropped(): number;
  /** Resolves once the lines taken are written, the reader has gone, or `timeoutMs` has passed. */
  flush(timeoutMs: number): Promise<void>;
}

/** Standard output, or any other file descriptor the process holds. */
export function logDestination(fd = 1): LogDestination {
  const stat = fstatSync(fd);
  return stat.isFIFO() || stat.isSocket() ? streamDestination(fd) : fileDestination(fd);
}

function streamDestination(fd: number): LogDestination {
  // libuv makes the descriptor non-blocking and queues what the reader has not taken yet.
  const socket = new Socket({ fd, readable: false, writable: true });
  let dropped = 0;
  let gone = false;
  /** Lines queued and not yet written; `settled` is told when that reaches none, or the reader goes. */
  let queued = 0;
  let settled = () => {};
  const written = () => {
    queued -= 1;
    if (queued === 0) settled();
  };
  socket.on('error', () => {
    gone = true;
    socket.destroy();
    settled();
  });
  // An idle log must not keep the process alive.
  socket.unref();
  return {
    write(line: string) {
      if (gone || socket.writableLength > MAX_BUFFERED) {
        dropped += 1;
        return;
      }
      queued += 1;
      socket.write(line, written);
    },
    dropped: () => dropped,
    flush: (timeoutMs) =>
      new Promise<void>((resolve) => {
        if (gone || queued === 0) return resolve();
        const timer = setTimeout(done, timeoutMs);
        function done() {
          clearTimeout(timer);
          settled = () => {};
          resolve();
        }
        settled = done;
      }),
  };
}

function fileDestination(fd: number): LogDestination {
  let dropped = 0;
  return {
    write(line: string) {
      try {
        writeSync(fd, line);
      } catch {
        dropped += 1;
      }
    },
    dropped: () => dropped,
    flush: async () => {},
  };
}
