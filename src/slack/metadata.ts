import { z } from 'zod';
import { bought } from './bought.js';

// What a modal remembers between Slack round trips, in its private_metadata: the channel, and for a new agent made
// for numbers just bought, those numbers.
const modalMetadata = z.object({
  channelId: z.string().optional(),
  bought: bought.optional(),
  /** The kind of change a kind's own form asks for. */
  kind: z.string().optional(),
});
export type ModalMetadata = z.infer<typeof modalMetadata>;

export const encodeMetadata = (metadata: ModalMetadata): string => JSON.stringify(metadata);

export function decodeMetadata(text: string | undefined): ModalMetadata {
  try {
    const parsed = modalMetadata.safeParse(JSON.parse(text ?? '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}
