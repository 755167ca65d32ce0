// What the store's command-line tools share: their arguments read with node's parser, and a mistake in them told
// apart from a failure (it exits 2, with the usage).
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

/** The arguments as `config` reads them; an unknown option or a missing value is a UsageError naming it. */
export function parsedArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    // node's message names the argument, never a value.
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
