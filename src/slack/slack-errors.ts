// Slack's refusals that the person who asked can do something about, in a sentence that says what.
export function slackRefusal(code: string): string | undefined {
  switch (code) {
    case 'ratelimited':
      return 'Slack is limiting how often Voice Ops may call it just now: wait a minute, then try again.';
    case 'team_access_not_granted':
      return (
        'Voice Ops has not been added to this workspace of the org: an org admin can add it (Manage apps → ' +
        'Voice Ops → Add to more workspaces), then try again.'
      );
    default:
      return undefined;
  }
}
