// Why something failed, past its reason, in the app's own words: one list, so that the audit log's `error_code`
// holds only codes a reader (or a SIEM rule) can look up here. A dependency's own code (Slack's `not_in_channel`) goes
// in as the dependency gave it, and a failure with neither is written with its provider kind or its reason.
export const FAILURE_CODES = [
  /** A change that would change nothing: the settings or the route already say so. */
  'unchanged',
  /** A delivery from an organization the app cannot tell, or from another one. */
  'organization_unknown',
  'other_organization',
  /** What a plan would do changed between its plan and its confirmation. */
  'plan_changed',
  /** Some items of a plan failed. */
  'items_failed',
  /** A plan whose process died while applying it. */
  'interrupted',
  /** A setting the environment or the policy file locks. */
  'locked',
  /** A settings change that would leave no admin, or a rule no one could satisfy. */
  'last_admin',
  'unapprovable',
  /** Slack could not say who holds a role. */
  'slack_unreadable',
  /** An agent's creation that was cut off, and whose agent the lists cannot tell from the others of its name. */
  'unverified',
  /** A second outcome for a change that has one already. */
  'second_outcome',
  /** An announcement failed for a reason Slack did not name. */
  'unknown',
  'audit_chain_broken',
  /** An agent that numbers still route to. */
  'agent_in_use',
  /** Approval policies: one's own change, a person who may not approve, a channel changes may not come from. */
  'own_change',
  'not_approver',
  'change_channel',
  'buy_limit',
  /** A number or an agent another team owns. */
  'owner',
  /** An Undo of labels or an owner changed again since. */
  'changed_since',
  /** A number or an agent outside the binding of the channel the change is asked in. */
  'channel_binding',
  /** A number the provider does not offer now, or one sold to someone else between the confirmation and Confirm. */
  'not_for_sale',
  'sold_elsewhere',
] as const;

export type FailureCode = (typeof FAILURE_CODES)[number];
