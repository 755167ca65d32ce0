// Log lines for a person at a terminal: `12:00:01 INFO  Playground: open http://127.0.0.1:3000/ …`, with the fields a
// line carries after it and an error's stack below it. A pipe or a file (tests, CI, containers) gets pino's JSON
// lines instead; main.ts chooses by whether stdout is a TTY.
import type { DestinationStream } from 'pino';
import { z } from 'zod';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** What a pino line always has; the rest are its fields. `app` and `pid` are the same on every line. */
const line = z
  .object({
    level: z.number(),
    time: z.string(),
    msg: z.string().default(''),
    err: z.object({ stack: z.string().optional() }).loose().optional(),
  })
  .loose();

/** One JSON line from pino as one readable line (two or more when it carries a stack). */
export function readableLine(json: string): string {
  let parsed: z.infer<typeof line>;
  try {
    parsed = line.parse(JSON.parse(json));
  } catch {
    return json;
  }
  const { level, time, msg, err, app: _app, pid: _pid, ...fields } = parsed;
  const clock = time.slice(11, 19);
  const named = (LEVELS[level] ?? String(level)).padEnd(5);
  const extra = Object.entries(fields).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
  const stack = err?.stack ? `\n${err.stack}` : '';
  return `${clock} ${named} ${[msg, ...extra].join(' ')}${stack}\n`;
}

/** A pino destination that writes each line readably to `out`. */
export function readableLines(out: { write(text: string): unknown }): DestinationStream {
  return { write: (json: string) => void out.write(readableLine(json.trimEnd())) };
}
