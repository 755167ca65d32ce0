// Labelling a number or an agent, and giving it to a team: checked (the labels' form, the thing in the account, the
// role and its owner), then changed at once, since it spends nothing and Undo walks it back.
import { z } from 'zod';
import { groupId, labelSchema } from '../settings-schema.js';
import { NO_TAGS } from '../store/tags.js';
import { askAs, requestChange } from './ask-confirmation.js';
import { record } from './audit-rows.js';
import { carryOut, type Done } from './carry-out.js';
import type { OpsDeps } from './deps.js';
import { providerFailure } from './failures.js';
import { changeKind, KIND } from './kinds/index.js';
import {
  changedSince,
  isNumberTarget,
  type LabelChange,
  labelChange,
  refuseAsked,
  sameTags,
} from './kinds/label-change.js';
import { refuseGivingAway } from './ownership.js';
import { mayRequest } from './policies.js';
import { type Actor, fail, type Result } from './types.js';
import { validate } from './validate.js';
import { visible } from './visible.js';

export const labelsInput = z.object({
  /** A purchased number (`+…`) or an agent's id. */
  target: z.string().min(1),
  add: z.array(labelSchema).default([]),
  remove: z.array(labelSchema).default([]),
  /** A user group to own it, null for nobody, absent to leave the owner as it is. */
  owner: groupId.nullable().optional(),
});
export type LabelsInput = z.input<typeof labelsInput>;

export async function changeLabels(
  deps: OpsDeps,
  actor: Actor,
  input: LabelsInput,
  correlationId: string,
): Promise<Result<Done>> {
  const attempt = { action: KIND.label, target: input.target, correlationId };
  const denied = await mayRequest(deps, actor, attempt, [input.target]);
  if (denied) return denied;
  const checked = validate(labelsInput, input);
  if (!checked.ok) return checked;
  const { target, add, remove, owner } = checked.value;
  const refused = refuseAsked({ add, remove, owner });
  if (refused) return refused;
  const found = await inAccount(deps, target);
  if (!found.ok) return found;
  const change: LabelChange = {
    kind: KIND.label,
    target,
    ...(found.agentName !== undefined ? { agentName: found.agentName } : {}),
    add,
    remove,
    ...(owner !== undefined ? { owner } : {}),
  };
  const givingAway = await refuseGivingAway(deps, await deps.settings.current(), actor, change, attempt);
  if (givingAway) return givingAway;
  await record(deps, actor, correlationId, { action: KIND.label, outcome: 'requested', target, params: change });
  return carryOut(deps, actor, correlationId, changeKind(KIND.label).work(deps, change, actor.userId));
}

/** A number the account owns, or an agent it has (with its name): labels are kept only for what is there. */
async function inAccount(deps: OpsDeps, target: string): Promise<Result<{ agentName?: string }>> {
  try {
    if (isNumberTarget(target)) {
      const numbers = await deps.lists.numbers.get({ fresh: true });
      if (numbers.some((entry) => entry.number === target)) return { ok: true };
      return fail('not_found', `${visible(target)} is not one of your numbers: /voice numbers lists them.`);
    }
    const agent = (await deps.lists.agents.get({ fresh: true })).find((entry) => entry.id === target);
    if (agent) return { ok: true, agentName: agent.name };
    return fail('not_found', `No agent has the id ${visible(target)}: /voice agents lists them.`);
  } catch (error) {
    return providerFailure(error);
  }
}

// A label change asked for on its own (an Undo's) is refused at once when the tags moved since, as its Confirm would.
askAs(labelChange, async (deps, actor, change, correlationId) => {
  const { target, expect } = change;
  if (expect && !sameTags((await deps.store.tags.of([target])).get(target) ?? NO_TAGS, expect)) {
    return changedSince(target);
  }
  const asked = await requestChange(deps, actor, change, correlationId);
  return asked.ok ? { ok: true, status: 'needs_confirmation', prompt: asked.prompt } : asked;
});
