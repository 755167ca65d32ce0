// Bodies still arriving, whose signature cannot be checked yet. Anyone who knows the URL can send one, so each has a
// deadline and the body limit, and their number is capped: past it the longest-waiting is refused, so that a slow
// sender cannot hold every place. A body already in is proven first (docs/decisions.md, "Unproven bodies are bounded").

import { youngCollector } from './young-garbage.js';

export type Cutoff = 'too slow' | 'too many';

export interface Admission {
  /** Reused by the bodies read after it, so that they leave nothing behind for V8 to collect. */
  readonly room: Buffer;
  /** Calls `listener` if the body must stop being read: at its deadline, or when a newer body takes its place. */
  onCutoff(listener: (cutoff: Cutoff) => void): void;
  /** `bytes` more of the body were read: Node's copies of them are collected every MiB (young-garbage.ts). */
  read(bytes: number): void;
  /** The body is in (or refused): its place is free again. */
  leave(): void;
}

interface Place {
  cut(cutoff: Cutoff): void;
}

export class UnprovenBodies {
  /** Oldest first, as a Set keeps its insertion order. */
  readonly #waiting = new Set<Place>();
  /** Rooms of places left, for the next bodies admitted. */
  readonly #rooms: Buffer[] = [];
  /** Counts bytes of bodies read, or left unread but parsed by Node before their connection closed. */
  readonly read = youngCollector();

  /** `onCount` is told how many bodies are being read whenever that changes. */
  constructor(
    readonly capacity: number,
    readonly deadlineMs: number,
    readonly bodyLimit: number,
    readonly onCount: (count: number) => void,
  ) {}

  /** Takes a place for a body about to be read, refusing the longest-waiting one when every place is taken. */
  admit(): Admission {
    if (this.#waiting.size >= this.capacity) {
      const [oldest] = this.#waiting;
      oldest?.cut('too many');
    }
    let listener: ((cutoff: Cutoff) => void) | undefined;
    const room = this.#rooms.pop() ?? Buffer.allocUnsafeSlow(this.bodyLimit);
    const leave = () => {
      clearTimeout(timer);
      if (!this.#waiting.delete(place)) return;
      this.#rooms.push(room);
      this.onCount(this.#waiting.size);
    };
    const place: Place = {
      cut: (cutoff) => {
        leave();
        listener?.(cutoff);
      },
    };
    const timer = setTimeout(() => place.cut('too slow'), this.deadlineMs);
    timer.unref();
    this.#waiting.add(place);
    this.onCount(this.#waiting.size);
    return {
      room,
      onCutoff: (next) => {
        listener = next;
      },
      read: this.read,
      leave,
    };
  }
}
