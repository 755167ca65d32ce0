// Who sent a delivery, as one { enterprise, team, user } triple made once per request by middleware: everything that
// matches a requester (the app's workspace or org, a confirmation's asker, the workspace of their user groups)
// compares these. The fields each delivery kind carries, per Slack's payload references:
// - slash command: `user_id`, `user_name`, `team_id` (the workspace it was typed in), `enterprise_id`;
// - block_actions, block_suggestion, view_submission, view_closed: `user.id`, `user.username`, `user.team_id` (the
//   user's own workspace), `enterprise.id` or `team.enterprise_id`; `team` is null from an org-wide install;
// - Events API (app_home_opened): `event.user`, and the workspace and org of `authorizations[0]`;
// - function_executed (a Workflow Builder step): no user of its own; the person the step names is its `user_id` input,
//   which the workflow's builder sets, and whom the step trusts only as listeners/steps.ts says.
import type { AnyMiddlewareArgs, Context, Middleware } from '@slack/bolt';
import { z } from 'zod';

const sender = z.union([
  z
    .object({ user_id: z.string(), user_name: z.string().optional(), team_id: z.string().optional() })
    .transform((b) => ({ userId: b.user_id, userName: b.user_name, teamId: b.team_id })),
  z
    .object({
      user: z.object({
        id: z.string(),
        username: z.string().optional(),
        name: z.string().optional(),
        team_id: z.string().optional(),
      }),
    })
    .transform((b) => ({
      userId: b.user.id,
      userName: b.user.username ?? b.user.name,
      teamId: b.user.team_id,
      ownTeam: b.user.team_id,
    })),
  z.object({ event: z.object({ user: z.string() }) }).transform((b) => ({ userId: b.event.user })),
  z
    .object({ event: z.object({ type: z.literal('function_executed'), inputs: z.object({ user_id: z.string() }) }) })
    .transform((b) => ({ userId: b.event.inputs.user_id })),
]);

export const requester = z.object({
  userId: z.string(),
  userName: z.string().optional(),
  /** The requester's own workspace: their user groups live there, and a Slack Connect guest's is not the app's. */
  teamId: z.string().optional(),
  /** The Enterprise Grid org the delivery came through, read by Bolt from whichever field the kind carries. */
  enterpriseId: z.string().optional(),
  /** `user.team_id` of interactions; absent for commands and events, whose team is where they were sent from. */
  ownTeam: z.string().optional(),
});
export type Requester = z.infer<typeof requester>;

/** Makes the delivery's requester once, into `context.requester`, before any other middleware looks at it. */
export function identifyRequester(): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const sent = sender.safeParse(body);
    const who: Requester = {
      userId: sent.success ? sent.data.userId : 'unknown',
      userName: sent.success && 'userName' in sent.data ? sent.data.userName : undefined,
      teamId: (sent.success && 'teamId' in sent.data ? sent.data.teamId : undefined) ?? context.teamId,
      enterpriseId: context.enterpriseId,
      ownTeam: sent.success && 'ownTeam' in sent.data ? sent.data.ownTeam : undefined,
    };
    context.requester = who;
    await next();
  };
}

/** The requester identifyRequester made for this delivery. */
export function requesterIn(context: Context): Requester {
  return requester.parse(context.requester);
}
