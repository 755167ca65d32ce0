// What Slack's servers do when a person acts: build and sign the payload, POST it to the app, give up after 3 seconds,
// and act on the app's answer, refusing what Slack would refuse.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import { type ActionElement, type Block, check, elementsOf, optionsAnswer, type SlackOption } from './block-kit.js';
import { type FakeSlack, isRecord } from './fake-slack.js';
import {
  type ActionContainer,
  appHomeOpened,
  blockAction,
  blockSuggestion,
  functionExecuted,
  type StateValues,
  slashCommand,
  viewClosed,
  viewSubmission,
} from './payloads.js';
import { PEOPLE, SLASH_COMMAND } from './people.js';
import { type AppResponse, JSON_CONTENT_TYPE, type PostOptions, postToSlackApp } from './signing.js';
import type { WorkflowDraft } from './workflows.js';
import type { OpenView } from './workspace.js';

/** How long Slack waits for an app to acknowledge a request. */
const ACK_TIMEOUT_MS = 3_000;

/** Where the app listens, and the secret its requests are signed with. */
export interface AppEndpoint {
  eventsUrl: string;
  signingSecret: string;
}

/** Where a person clicked or typed: a message in a conversation, or one of their views (modal or Home tab). */
export type Target = { kind: 'message'; channel: string; ts: string } | { kind: 'view'; viewId: string };

/** What a person did to an element: pressed it (a button), or chose an option in it (a select). */
export interface Act {
  blockId: string;
  actionId: string;
  selected?: { text: string; value: string };
}

/** Why Slack would not pass on what a person did, in a sentence for the page. */
export type Outcome = { ok: true } | { ok: false; reason: string };

export type Suggested = { ok: true; options: SlackOption[] } | { ok: false; reason: string };

const refused = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

function findElement(blocks: Block[], act: { blockId: string; actionId: string }): ActionElement | undefined {
  const block = blocks.find((candidate) => candidate.block_id === act.blockId);
  return block ? elementsOf(block).find((element) => element.action_id === act.actionId) : undefined;
}

/** A static select's options, flattened out of their groups. */
function staticOptions(element: ActionElement): SlackOption[] {
  if (element.type !== 'static_select') return [];
  return [...(element.options ?? []), ...(element.option_groups ?? []).flatMap((group) => group.options)];
}

export class Interactions {
  constructor(
    private readonly slack: FakeSlack,
    private app: AppEndpoint,
    private readonly logger: Logger,
  ) {}

  /** The app started again (Start over), on a new port: requests go there from now on. */
  reconnect(app: AppEndpoint): void {
    this.app = app;
  }

  private get workspace() {
    return this.slack.workspace;
  }

  private handle(userId: string): string {
    return PEOPLE.find((person) => person.id === userId)?.handle ?? userId.toLowerCase();
  }

  private channelName(channel: string): string {
    return this.workspace.channels.get(channel)?.name ?? 'directmessage';
  }

  /** `/voice …` goes to the app; another slash command gets Slackbot's answer; anything else is a message. */
  async type(userId: string, channel: string, typed: string): Promise<Outcome> {
    const text = typed.trim();
    if (!this.workspace.channels.has(channel)) return refused('There is no such channel.');
    const command = /^(\/\S+)\s*([\s\S]*)$/.exec(text);
    if (!command) {
      this.workspace.say(userId, channel, text);
      return { ok: true };
    }
    const [, name = '', args = ''] = command;
    if (name !== SLASH_COMMAND) {
      this.workspace.notice(
        userId,
        channel,
        `${name} is not a valid command. In the playground, only ${SLASH_COMMAND} works.`,
      );
      return { ok: true };
    }
    this.workspace.noteCommand(userId, channel, text);
    const responseUrlId = this.newId();
    const body = slashCommand({
      text: args,
      userId,
      userName: this.handle(userId),
      channelId: channel,
      channelName: this.channelName(channel),
      command: SLASH_COMMAND,
      triggerId: this.slack.issueTriggerId(userId),
      responseUrl: this.slack.respondUrl(responseUrlId, { userId, channel }),
    });
    const answer = await this.deliver(body);
    if ('error' in answer) {
      this.workspace.notice(userId, channel, `${SLASH_COMMAND} failed with the error "${answer.error}"`);
    } else {
      // A command may be answered in its acknowledgement: Slack shows that body as the reply.
      this.slack.showAcknowledgement(responseUrlId, answer.json);
    }
    return { ok: true };
  }

  /** A button pressed, or an option chosen in a select outside an input block. */
  async act(userId: string, target: Target, act: Act, state: StateValues): Promise<Outcome> {
    const place = this.locate(userId, target);
    if ('reason' in place) return refused(place.reason);
    const element = findElement(place.blocks, act);
    if (!element) {
      return refused(
        'That button or menu is gone: the app replaced the message or form since the page drew it. Nothing was ' +
          'sent to the app; use what it shows now.',
      );
    }
    const chosen = this.chosen(element, act);
    if ('reason' in chosen) return refused(chosen.reason);
    let responseUrl: string | undefined;
    if (target.kind === 'message') {
      const origin = { userId, channel: target.channel, messageTs: target.ts };
      responseUrl = this.slack.respondUrl(this.newId(), origin);
    }
    const body = blockAction({
      userId,
      userName: this.handle(userId),
      actionId: act.actionId,
      blockId: act.blockId,
      ...(element.type === 'button'
        ? { buttonText: element.text.text, ...(element.value === undefined ? {} : { value: element.value }) }
        : {}),
      ...chosen,
      container: place.container(state),
      ...(responseUrl === undefined ? {} : { responseUrl }),
      triggerId: this.slack.issueTriggerId(userId),
      channelName: target.kind === 'message' ? this.channelName(target.channel) : undefined,
      ...(place.message ? { messageText: place.message.text, messageBlocks: place.message.blocks } : {}),
      // A message a workflow step posted ties its buttons to the step.
      functionInteraction:
        target.kind === 'message' ? this.slack.functions.interactionWith(target.channel, target.ts) : undefined,
      state,
    });
    await this.interact(userId, body);
    return { ok: true };
  }

  private chosen(
    element: ActionElement,
    act: Act,
  ):
    | { selectedOption?: { text: string; value: string }; selectType?: 'static_select' | 'external_select' }
    | { reason: string } {
    if (element.type === 'button') return {};
    if (!act.selected) return { reason: 'Choose an option.' };
    if (element.type === 'static_select') {
      const known = staticOptions(element).find((candidate) => candidate.value === act.selected?.value);
      if (!known) return { reason: 'That option is not one of the list.' };
      return { selectedOption: { text: known.text.text, value: known.value }, selectType: 'static_select' };
    }
    if (element.type === 'external_select') return { selectedOption: act.selected, selectType: 'external_select' };
    return { reason: `The playground cannot use a ${element.type} yet.` };
  }

  /** Submits the person's top modal with what they entered, and acts on the app's response_action. */
  async submit(userId: string, viewId: string, state: StateValues): Promise<Outcome> {
    const open = this.workspace.topModal(userId);
    if (!open || open.id !== viewId) return refused('That form is no longer open.');
    const body = viewSubmission({
      userId,
      userName: this.handle(userId),
      callbackId: open.view.callback_id ?? '',
      stateValues: state,
      view: this.workspace.viewAnswer(open, state),
      triggerId: this.slack.issueTriggerId(userId),
    });
    const sentRevision = open.revision;
    const answer = await this.interact(userId, body);
    if (answer) this.workspace.answerSubmission(userId, viewId, sentRevision, isRecord(answer.json) ? answer.json : {});
    return { ok: true };
  }

  /** Closes the person's top modal (its close button), or every view of the stack; tells the app where it asked. */
  async close(userId: string, viewId: string, all: boolean): Promise<Outcome> {
    if (this.workspace.topModal(userId)?.id !== viewId) return refused('That form is no longer open.');
    const closed = this.workspace.closeModal(userId, all);
    for (const view of closed.filter(
      (candidate) => candidate.view.type === 'modal' && candidate.view.notify_on_close,
    )) {
      const body = viewClosed({
        userId,
        userName: this.handle(userId),
        callbackId: view.view.callback_id ?? '',
        view: this.workspace.viewAnswer(view),
        isCleared: all,
      });
      await this.interact(userId, body);
    }
    return { ok: true };
  }

  /** A type-ahead: the app's options listener answers with what to offer for `typed`. */
  async suggest(
    userId: string,
    target: Target,
    act: { blockId: string; actionId: string },
    typed: string,
  ): Promise<Suggested> {
    const place = this.locate(userId, target);
    if ('reason' in place) return refused(place.reason);
    const element = findElement(place.blocks, act);
    if (element?.type !== 'external_select' && element?.type !== 'multi_external_select') {
      return refused('That is not a type-ahead select.');
    }
    if (typed.length < (element.min_query_length ?? 3)) return { ok: true, options: [] };
    const body = blockSuggestion({
      userId,
      userName: this.handle(userId),
      actionId: act.actionId,
      blockId: act.blockId,
      value: typed,
      container: place.container({}),
    });
    const answer = await this.interact(userId, body);
    if (!answer) return refused('The app did not answer.');
    const checked = check(optionsAnswer, answer.json ?? {});
    if (!checked.ok) {
      this.workspace.refuseInteraction('block_suggestion answer', userId, 'invalid_options', checked.problems);
      return refused(`Slack would refuse the app's options: ${checked.problems.join('; ')}`);
    }
    const options =
      'options' in checked.value
        ? checked.value.options
        : checked.value.option_groups.flatMap((group) => group.options);
    return { ok: true, options };
  }

  /** Each step starts once the one before has completed, its interactivity input vouching for the person. */
  runWorkflow(userId: string, workflow: WorkflowDraft): Outcome {
    return this.slack.workflows.start(userId, workflow, async (execution) => {
      const answer = await this.interact(userId, functionExecuted(execution), { contentType: JSON_CONTENT_TYPE });
      return answer !== undefined;
    });
  }

  /** The person opened the app's Home tab: Slack sends app_home_opened, and the app publishes the view. */
  async openHome(userId: string): Promise<Outcome> {
    const body = appHomeOpened({ userId });
    await this.interact(userId, body, { contentType: JSON_CONTENT_TYPE });
    return { ok: true };
  }

  /** A message or view of this person's, its blocks, and the container Slack names it by in a payload. */
  private locate(
    userId: string,
    target: Target,
  ):
    | { blocks: Block[]; message?: { text: string; blocks: unknown[] }; container(state: StateValues): ActionContainer }
    | { reason: string } {
    if (target.kind === 'message') {
      const message = this.workspace.message(target.channel, target.ts);
      if (!message || (message.visibleTo !== undefined && message.visibleTo !== userId)) {
        return {
          reason:
            'That message is gone: the app deleted or replaced it, or Start over cleared the page. Nothing was sent ' +
            'to the app.',
        };
      }
      const isEphemeral = message.visibleTo !== undefined;
      return {
        blocks: message.blocks,
        // Slack leaves an ephemeral message out of the payload.
        ...(isEphemeral ? {} : { message: { text: message.text, blocks: message.blocks } }),
        container: () => ({ type: 'message', channelId: target.channel, messageTs: target.ts, isEphemeral }),
      };
    }
    const open: OpenView | undefined = this.workspace.view(target.viewId);
    const isMine =
      open?.userId === userId &&
      (open.view.type === 'home'
        ? this.workspace.homeOf(userId)?.id === open.id
        : this.workspace.topModal(userId)?.id === open.id);
    if (!open || !isMine) return { reason: 'That view is not open any more.' };
    return {
      blocks: open.view.blocks,
      container: (state) => ({
        type: 'view',
        viewId: open.id,
        viewType: open.view.type,
        view: this.workspace.viewAnswer(open, state),
      }),
    };
  }

  /** POSTs a signed body to the app, as Slack does; an answer that is late (after 3 s) or not a 200 is an error. */
  private async deliver(body: string, options: PostOptions = {}): Promise<AppResponse | { error: string }> {
    try {
      const answer = await postToSlackApp(this.app.eventsUrl, this.app.signingSecret, body, {
        ...options,
        timeoutMs: ACK_TIMEOUT_MS,
      });
      return answer.status === 200 ? answer : { error: `http_${answer.status}` };
    } catch (error) {
      this.logger.warn({ err: error }, 'playground: the app did not acknowledge a request within 3 seconds');
      return { error: 'operation_timeout' };
    }
  }

  /** Delivers an interaction; when the app fails it, the person sees that it did, as Slack shows a failed click. */
  private async interact(userId: string, body: string, options: PostOptions = {}): Promise<AppResponse | undefined> {
    const answer = await this.deliver(body, options);
    if (!('error' in answer)) return answer;
    this.workspace.refuseInteraction('request to the app', userId, answer.error, [
      `The app did not acknowledge this request (${answer.error}); Slack would show that it failed.`,
    ]);
    return undefined;
  }

  private newId(): string {
    return `R${randomBytes(8).toString('hex')}`;
  }
}
