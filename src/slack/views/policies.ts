// The guardrails in force, in one line each, for help and the Home tab: a person sees the rules before meeting them.
import { confirmWordsOf, type PoliciesInForce } from '../../ops/api.js';
import { mentionChannel } from '../mrkdwn.js';

const PERIOD = { day: 'today', week: 'this week' } as const;

/** Mrkdwn lines, empty when no guardrail is set. */
export function policyLines({ policy, buying }: PoliciesInForce): string[] {
  const lines = buying.map(({ rule, limit, used }) => {
    const whose = rule === 'VOICE_BUY_LIMIT' ? 'Buying' : 'Your buying';
    return `:moneybag: ${whose}: ${used} of ${limit.count} ${PERIOD[limit.window]} (\`${rule}\`)`;
  });
  if (policy.requireApproval.length > 0) {
    const what = policy.requireApproval.map((action) => confirmWordsOf(action).gerund).join(', ');
    const where = policy.approvalsChannelId ? `, asked in ${mentionChannel(policy.approvalsChannelId)}` : '';
    const sentence = `${what.charAt(0).toUpperCase()}${what.slice(1)}`;
    const verb = policy.requireApproval.length === 1 ? 'needs' : 'need';
    lines.push(`:raised_hand: ${sentence} ${verb} a second approver${where} (\`VOICE_REQUIRE_APPROVAL\`)`);
  }
  if (policy.changeChannels.length > 0) {
    const channels = policy.changeChannels.map(mentionChannel).join(', ');
    lines.push(`:round_pushpin: Changes only in ${channels} (\`VOICE_CHANGE_CHANNELS\`)`);
  }
  if (policy.typedRelease) {
    lines.push(':keyboard: Releasing a routed number asks for its last four digits (`VOICE_TYPED_RELEASE`)');
  }
  if (lines.length > 0) lines.push('Whoever runs Voice Ops sets these rules.');
  return lines;
}
