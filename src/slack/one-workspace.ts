import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import { z } from 'zod';
import type { Actor, VoiceOps } from '../ops/index.js';
import type { AuditSource } from '../store/audit.js';
import { belongsTo, type SlackIdentity } from './identity.js';

// Who sent a delivery, in whichever shape its kind carries it.
const sender = z.union([
  z
    .object({ user_id: z.string(), user_name: z.string().optional() })
    .transform((b) => ({ id: b.user_id, name: b.user_name })),
  z.object({ user: z.object({ id: z.string(), username: z.string().optional() }) }).transform((b) => ({
    id: b.user.id,
    name: b.user.username,
  })),
  z.object({ event: z.object({ user: z.string() }) }).transform((b) => ({ id: b.event.user, name: undefined })),
]);

const NOT_READY = 'Voice Ops cannot reach Slack right now, so it cannot answer. Try again in a minute.';
const OTHER_WORKSPACE = 'This Voice Ops app serves another workspace: nothing was done.';

/**
 * Handles only deliveries from the workspace (or Enterprise Grid org) the bot token belongs to, learnt from
 * auth.test. Anything else is acknowledged, refused and audited; before Slack has ever answered, nothing is handled.
 */
export function oneWorkspace(identity: SlackIdentity, ops: VoiceOps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const known = identity.current;
    if (known && belongsTo(known, args.context)) return args.next();
    if (known) ops.refuseOtherWorkspace(actorOf(args.body, args.context), known.teamId);
    await acknowledge(args, known ? OTHER_WORKSPACE : NOT_READY);
  };
}

function actorOf(body: AnyMiddlewareArgs['body'], context: Context): Actor {
  const user = sender.safeParse(body);
  return {
    userId: user.success ? user.data.id : 'unknown',
    userName: user.success ? user.data.name : undefined,
    teamId: context.teamId ?? context.enterpriseId,
    source: sourceOf(body),
  };
}

function sourceOf(body: AnyMiddlewareArgs['body']): AuditSource {
  if ('command' in body) return 'command';
  if (body.type === 'block_actions') return 'button';
  if (body.type === 'view_submission' || body.type === 'view_closed') return 'modal';
  return 'home';
}

/** A slash command's acknowledgement can carry a reply; other kinds are acknowledged bare. */
async function acknowledge(args: AnyMiddlewareArgs, text: string): Promise<void> {
  if (!('ack' in args) || !args.ack) return;
  if ('command' in args) await args.ack({ response_type: 'ephemeral', text });
  else await (args.ack as () => Promise<void>)();
}
