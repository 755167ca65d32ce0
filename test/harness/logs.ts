// A pino destination that keeps every line in memory: `createLogger(level, logs.stream)` and then read what the
// app logged, e.g. to prove that a secret never reached the log.
import type { DestinationStream } from 'pino';

export interface CapturedLogs {
  stream: DestinationStream;
  /** Every line written, without the trailing newline. */
  lines(): string[];
  /** Everything written, one line per entry. */
  text(): string;
  /** The lines parsed as JSON (lines that are not JSON are skipped). */
  entries(): Record<string, unknown>[];
  clear(): void;
}

export function captureLogs(): CapturedLogs {
  const written: string[] = [];
  return {
    stream: {
      write(line: string) {
        // pino writes one JSON line per call, each ending in '\n'.
        for (const part of line.split('\n')) if (part.length > 0) written.push(part);
      },
    },
    lines: () => [...written],
    text: () => written.join('\n'),
    entries: () =>
      written.flatMap((line) => {
        try {
          const parsed: unknown = JSON.parse(line);
          return typeof parsed === 'object' && parsed !== null ? [parsed as Record<string, unknown>] : [];
        } catch {
          return [];
        }
      }),
    clear: () => {
      written.length = 0;
    },
  };
}
