// The stand-in for Slack lives in src/playground, shared with the playground: one Slack for tests and people.
export * from '../../src/playground/fake-slack.js';
