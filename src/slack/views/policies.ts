// The guardrails in force, in one line each, for help and the Home tab: a person sees the rules before meeting them.
import { confirmWordsOf, type PoliciesInForce } from '../../ops/api.js';
import { approvalsChannelOf, type SettingName } from '../../settings-schema.js';
import { mentionChannel } from '../mrkdwn.js';

const PERIOD = { day: 'today', week: 'this week' } as const;

/** Mrkdwn lines, empty when no guardrail is set. */
export function policyLines({ policy, locks, buying }: PoliciesInForce): string[] {
  // A rule locked by the environment or the policy file names its key there; the rest are admins' to change in Slack.
  let anyLocked = false;
  const tag = (name: SettingName) => {
    const lock = locks[name];
    anyLocked ||= lock !== undefined;
    return lock ? ` (\`${lock.key}\`)` : '';
  };
  const lines = buying.map(({ rule, limit, used }) => {
    const whose = rule === 'buyLimit' ? 'Buying' : 'Your buying';
    return `:moneybag: ${whose}: ${used} of ${limit.count} ${PERIOD[limit.window]}${tag(rule)}`;
  });
  if (policy.requireApproval.length > 0) {
    const what = policy.requireApproval.map((action) => confirmWordsOf(action).gerund).join(', ');
    const channel = approvalsChannelOf(policy);
    const where = channel ? `, asked in ${mentionChannel(channel)}` : '';
    const sentence = `${what.charAt(0).toUpperCase()}${what.slice(1)}`;
    const verb = policy.requireApproval.length === 1 ? 'needs' : 'need';
    lines.push(`:raised_hand: ${sentence} ${verb} a second approver${where}${tag('requireApproval')}`);
  }
  if (policy.changeChannels.length > 0) {
    const channels = policy.changeChannels.map(mentionChannel).join(', ');
    lines.push(`:round_pushpin: Changes only in ${channels}${tag('changeChannels')}`);
  }
  if (policy.typedRelease) {
    lines.push(`:keyboard: Releasing a routed number asks for its last four digits${tag('typedRelease')}`);
  }
  if (lines.length === 0) return lines;
  lines.push(
    anyLocked
      ? 'Admins change these rules with `/voice settings`; those named by their key, whoever runs Voice Ops.'
      : 'Admins change these rules with `/voice settings`.',
  );
  return lines;
}
