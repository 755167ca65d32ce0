// What Slack keeps for one workspace, as far as an app can see it: messages, modals, Home tabs, and single-use handles
// (trigger_ids: 3 seconds, once; response_urls: 5 posts in 30 minutes). What Slack would refuse is refused with
// Slack's error and kept as a refusal for whoever would have seen the result.
import { randomBytes } from 'node:crypto';
import {
  type Block,
  check,
  type MessageBody,
  type ModalView,
  messageBody,
  refusal,
  type View,
  view as viewSchema,
  withSlackIds,
} from './block-kit.js';

export const BOT_USER_ID = 'UBOT';
export const BOT_ID = 'BBOT';
export const TEAM_ID = 'T1';
export const APP_ID = 'AVOICE';

/** How long Slack honours a trigger_id, and how often and how long a response_url. */
export const TRIGGER_TTL_MS = 3_000;
export const RESPONSE_URL_POSTS = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60_000;
/** Views in one modal stack: a root and two pushed on top. */
export const MODAL_STACK = 3;
/** Messages kept per conversation; older ones scroll out of the workspace. */
const HISTORY = 500;

export interface Person {
  id: string;
  name: string;
}

export interface Channel {
  id: string;
  name: string;
}

/** A user group (`S…`): a mention of it reads `@handle`. */
export interface UserGroup {
  id: string;
  handle: string;
  name: string;
  members: readonly string[];
}

export interface Message {
  /** Stable across replacements, for whoever draws the conversation. */
  key: number;
  /** The conversation: a channel id, or `D` + user id for the app's direct messages with that person. */
  channel: string;
  ts: string;
  /** The app's bot user, a person, or `USLACKBOT` for Slack's own notices. */
  author: string;
  /** Set for an ephemeral message: the one person who sees it. */
  visibleTo?: string;
  text: string;
  blocks: Block[];
  /** Bumped each time the message is replaced in place. */
  revision: number;
  /** How many times chat.update rewrote it. */
  edits: number;
  /**
   * `command` for a slash command a person typed (shown only to them), `message` for what they posted, `slack` for
   * Slackbot's notices, else the call of the app's that made it.
   */
  via: 'command' | 'message' | 'slack' | 'chat.postMessage' | 'chat.postEphemeral' | 'response_url';
}

export interface OpenView {
  id: string;
  /** Whose modal or Home tab it is; unknown for views opened with a trigger_id this workspace did not issue. */
  userId?: string;
  view: View;
  hash: string;
  revision: number;
  rootId: string;
  previousId: string | null;
  /** Inline errors by block_id, from a submission answered with `response_action: errors`. */
  errors: Record<string, string>;
}

export interface Refusal {
  key: number;
  at: number;
  /** The call Slack refused: a Web API method, `response_url`, or the answer to an interaction. */
  method: string;
  error: string;
  problems: string[];
  /** Who would have seen the result, when one person would have. */
  userId?: string;
}

/** Where a response_url leads: the person and channel of the interaction, and the message that held the button. */
export interface ResponseOrigin {
  userId?: string;
  channel?: string;
  messageTs?: string;
}

/** A Web API answer: Slack's JSON, and the HTTP status it comes with (200, or 4xx for a response_url). */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface ResponseUrl extends ResponseOrigin {
  issuedAt: number;
  posts: number;
  /** Slack's 5 posts in 30 minutes apply to URLs Slack issued, not to ones a test or the bench made up. */
  limited: boolean;
}

const DM_PREFIX = 'D';
const isUserId = (value: string) => /^[UW][A-Z0-9]+$/.test(value);
const ok = (body: Record<string, unknown> = {}): Answer => ({ status: 200, body: { ok: true, ...body } });
const fail = (error: string, status = 200): Answer => ({ status, body: { ok: false, error } });
const text = (value: unknown) => (typeof value === 'string' ? value : '');

export class Workspace {
  readonly people = new Map<string, Person>();
  readonly channels = new Map<string, Channel>();
  readonly groups = new Map<string, UserGroup>();
  private readonly messages: Message[] = [];
  private readonly views = new Map<string, OpenView>();
  /** Each person's modal stack, root first. */
  private readonly stacks = new Map<string, string[]>();
  private readonly homes = new Map<string, string>();
  private readonly triggers = new Map<string, { userId: string; issuedAt: number; used: boolean }>();
  private readonly responseUrls = new Map<string, ResponseUrl>();
  private readonly refused: Refusal[] = [];
  private readonly listeners = new Set<() => void>();
  private counter = 0;
  private changes = 0;

  constructor(
    private readonly options: {
      /** Refuse handles and channels never issued, as Slack does. Off for tests, which make their own. */
      strict: boolean;
      now: () => number;
    },
  ) {}

  /** Increases with every change a person could see. */
  get version(): number {
    return this.changes;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  addPerson(person: Person): void {
    this.people.set(person.id, person);
  }

  addChannel(channel: Channel): void {
    this.channels.set(channel.id, channel);
  }

  addGroup(group: UserGroup): void {
    this.groups.set(group.id, { ...group, members: [...group.members] });
  }

  /** Forgets messages, views and refusals (not people, channels, groups or handles). */
  forget(): void {
    this.messages.length = 0;
    this.refused.length = 0;
    this.views.clear();
    this.stacks.clear();
    this.homes.clear();
    this.noteChange();
  }

  // --- handles ------------------------------------------------------------------------------------------------

  /** A trigger_id for something `userId` just did, shaped like Slack's. */
  issueTrigger(userId: string): string {
    const now = this.options.now();
    const id = `${Math.floor(now / 1000)}.${String(this.next()).padStart(10, '0')}.${randomBytes(16).toString('hex')}`;
    // Long-expired triggers are forgotten (and then read as invalid rather than expired, which Slack also does).
    for (const [old, trigger] of this.triggers)
      if (now - trigger.issuedAt > 100 * TRIGGER_TTL_MS) this.triggers.delete(old);
    this.triggers.set(id, { userId, issuedAt: now, used: false });
    return id;
  }

  issueResponseUrl(id: string, origin: ResponseOrigin): void {
    this.responseUrls.set(id, { ...origin, issuedAt: this.options.now(), posts: 0, limited: true });
  }

  /** Exchanges a trigger_id once, within its 3 seconds; a trigger this workspace never issued is refused when strict. */
  private exchange(triggerId: string): { userId?: string } | { error: string } {
    const trigger = this.triggers.get(triggerId);
    if (!trigger) return this.options.strict ? { error: 'invalid_trigger_id' } : {};
    if (trigger.used) return { error: 'exchanged_trigger_id' };
    if (this.options.now() - trigger.issuedAt > TRIGGER_TTL_MS) return { error: 'expired_trigger_id' };
    trigger.used = true;
    return { userId: trigger.userId };
  }

  // --- the Web API --------------------------------------------------------------------------------------------

  /** The answer to a stateful Web API method, or undefined for methods this class does not keep state for. */
  call(method: string, body: Record<string, unknown>): Answer | undefined {
    switch (method) {
      case 'chat.postMessage':
        return this.postMessage(body);
      case 'chat.postEphemeral':
        return this.postEphemeral(body);
      case 'chat.update':
        return this.updateMessage(body);
      case 'chat.delete':
        return this.deleteMessage(body);
      case 'views.open':
        return this.openView(body, false);
      case 'views.push':
        return this.openView(body, true);
      case 'views.update':
        return this.updateView(body);
      case 'views.publish':
        return this.publishHome(body);
      default:
        return undefined;
    }
  }

  /** A post to the response_url `id`: a new ephemeral (or in_channel) message, or the original replaced or deleted. */
  respond(id: string, body: Record<string, unknown>): Answer {
    const now = this.options.now();
    let url = this.responseUrls.get(id);
    if (!url) {
      if (this.options.strict) return fail('invalid_url', 404);
      url = { issuedAt: now, posts: 0, limited: false };
      this.responseUrls.set(id, url);
    }
    if (url.limited && now - url.issuedAt > RESPONSE_URL_TTL_MS) {
      return this.refuse('response_url', fail('expired_url', 404), url);
    }
    if (url.limited && url.posts >= RESPONSE_URL_POSTS) return this.refuse('response_url', fail('used_url', 404), url);
    url.posts += 1;
    const original = url.messageTs === undefined ? undefined : this.message(url.channel, url.messageTs);
    if (body.delete_original === true || body.delete_original === 'true') {
      if (original) this.discard(original);
      return ok();
    }
    const checked = this.checkMessage(body, '');
    if (!checked.ok) return this.refuse('response_url', { ...checked.answer, status: 400 }, url);
    const replace = body.replace_original === true || body.replace_original === 'true';
    if (replace && original) {
      this.replaceMessage(original, checked.message);
      return ok();
    }
    const channel = url.channel ?? '';
    const inChannel = body.response_type === 'in_channel';
    const added = this.addMessage({
      channel,
      author: BOT_USER_ID,
      ...(inChannel || url.userId === undefined ? {} : { visibleTo: url.userId }),
      message: checked.message,
      via: 'response_url',
    });
    // A command's response_url has no original until its first reply: later replace_original posts replace that.
    if (url.messageTs === undefined) {
      url.messageTs = added.ts;
      url.channel = channel;
    }
    return ok();
  }

  private checkMessage(
    body: Record<string, unknown>,
    pointerPrefix: string,
  ): { ok: true; message: MessageBody } | { ok: false; answer: Answer } {
    const checked = check(messageBody, body, pointerPrefix);
    if (!checked.ok) return { ok: false, answer: { status: 200, body: refusal('invalid_blocks', checked.problems) } };
    if (!checked.value.text && !checked.value.blocks?.length && !checked.value.attachments?.length) {
      return { ok: false, answer: fail('no_text') };
    }
    const { blocks } = checked.value;
    return { ok: true, message: blocks ? { ...checked.value, blocks: withSlackIds(blocks) } : checked.value };
  }

  /** The conversation a Web API channel argument names: a known channel, a DM, or (in tests) any id. */
  private conversation(channel: string): string | undefined {
    if (isUserId(channel)) return `${DM_PREFIX}${channel}`;
    if (this.channels.has(channel) || !this.options.strict) return channel;
    if (channel.startsWith(DM_PREFIX) && this.people.has(channel.slice(1))) return channel;
    return undefined;
  }

  private postMessage(body: Record<string, unknown>): Answer {
    const channel = this.conversation(text(body.channel));
    const dmWith = channel?.startsWith(DM_PREFIX) ? channel.slice(1) : undefined;
    if (channel === undefined) return this.refuse('chat.postMessage', fail('channel_not_found'));
    const checked = this.checkMessage(body, '');
    if (!checked.ok) return this.refuse('chat.postMessage', checked.answer, { userId: dmWith });
    const added = this.addMessage({ channel, author: BOT_USER_ID, message: checked.message, via: 'chat.postMessage' });
    const { channel: _channel, ...rest } = body;
    return ok({
      channel,
      ts: added.ts,
      message: { type: 'message', user: BOT_USER_ID, bot_id: BOT_ID, app_id: APP_ID, ...rest, ts: added.ts },
    });
  }

  private postEphemeral(body: Record<string, unknown>): Answer {
    const channel = this.conversation(text(body.channel));
    const user = text(body.user);
    if (channel === undefined) return this.refuse('chat.postEphemeral', fail('channel_not_found'), { userId: user });
    if (this.options.strict && !this.people.has(user)) {
      return this.refuse('chat.postEphemeral', fail('user_not_in_channel'), { userId: user });
    }
    const checked = this.checkMessage(body, '');
    if (!checked.ok) return this.refuse('chat.postEphemeral', checked.answer, { userId: user });
    const added = this.addMessage({
      channel,
      author: BOT_USER_ID,
      visibleTo: user,
      message: checked.message,
      via: 'chat.postEphemeral',
    });
    return ok({ message_ts: added.ts });
  }

  /** Only a message still there, by its channel and ts; the text and blocks given replace those, the others stay. */
  private updateMessage(body: Record<string, unknown>): Answer {
    const found = this.messageAt(text(body.channel), text(body.ts));
    if (!found || found.visibleTo !== undefined) return this.refuse('chat.update', fail('message_not_found'));
    const checked = this.checkMessage(body, '');
    if (!checked.ok) return this.refuse('chat.update', checked.answer);
    const { text: newText, blocks } = checked.message;
    this.replaceMessage(found, { text: newText ?? found.text, blocks: blocks ?? found.blocks });
    found.edits += 1;
    return ok({
      channel: found.channel,
      ts: found.ts,
      text: found.text,
      message: {
        type: 'message',
        user: BOT_USER_ID,
        bot_id: BOT_ID,
        app_id: APP_ID,
        text: found.text,
        blocks: found.blocks,
        edited: { user: BOT_USER_ID, ts: this.nextTs() },
      },
    });
  }

  private deleteMessage(body: Record<string, unknown>): Answer {
    const found = this.messageAt(text(body.channel), text(body.ts));
    if (!found) return this.refuse('chat.delete', fail('message_not_found'));
    this.discard(found);
    return ok({ channel: body.channel, ts: body.ts });
  }

  private openView(body: Record<string, unknown>, push: boolean): Answer {
    const method = push ? 'views.push' : 'views.open';
    const exchanged = this.exchange(text(body.trigger_id));
    if ('error' in exchanged) return this.refuse(method, fail(exchanged.error));
    const { userId } = exchanged;
    const checked = this.checkView(method, body.view, userId);
    if (!checked.ok) return checked.answer;
    if (checked.view.type !== 'modal') return this.refuse(method, fail('invalid_arguments'), { userId });
    const stack = userId === undefined ? [] : (this.stacks.get(userId) ?? []);
    if (push && stack.length >= MODAL_STACK) return this.refuse(method, fail('push_limit_reached'), { userId });
    if (push && userId !== undefined && stack.length === 0 && this.options.strict) {
      return this.refuse(method, fail('view_not_found'), { userId });
    }
    const id = this.nextId('V');
    const previous = push ? (stack.at(-1) ?? null) : null;
    const opened: OpenView = {
      id,
      userId,
      view: checked.view,
      hash: this.nextHash(),
      revision: 0,
      rootId: push ? (stack[0] ?? id) : id,
      previousId: previous,
      errors: {},
    };
    // Views opened with a trigger nobody issued (tests' own) belong to no one: answered, not kept.
    if (userId !== undefined) {
      // views.open starts a new stack; whatever was open is gone, as when a person opens another modal.
      if (!push) for (const old of stack) this.views.delete(old);
      this.views.set(id, opened);
      this.stacks.set(userId, push ? [...stack, id] : [id]);
      this.noteChange();
    }
    return ok({ view: this.viewAnswer(opened) });
  }

  private updateView(body: Record<string, unknown>): Answer {
    const viewId = text(body.view_id);
    const externalId = text(body.external_id);
    const found =
      this.views.get(viewId) ??
      [...this.views.values()].find((open) => externalId !== '' && open.view.external_id === externalId);
    if (!found) {
      if (this.options.strict) return this.refuse('views.update', fail('not_found'));
      const checked = this.checkView('views.update', body.view, undefined);
      if (!checked.ok) return checked.answer;
      const id = viewId || this.nextId('V');
      return ok({ view: this.viewAnswer({ ...this.detached(id, checked.view) }) });
    }
    if (typeof body.hash === 'string' && body.hash !== '' && body.hash !== found.hash) {
      return this.refuse('views.update', fail('hash_conflict'), { userId: found.userId });
    }
    const checked = this.checkView('views.update', body.view, found.userId);
    if (!checked.ok) return checked.answer;
    if (checked.view.type !== found.view.type) {
      return this.refuse('views.update', fail('invalid_arguments'), { userId: found.userId });
    }
    this.replaceView(found, checked.view);
    return ok({ view: this.viewAnswer(found) });
  }

  private publishHome(body: Record<string, unknown>): Answer {
    const userId = text(body.user_id);
    if (this.options.strict && !this.people.has(userId)) return this.refuse('views.publish', fail('user_not_found'));
    const checked = this.checkView('views.publish', body.view, userId);
    if (!checked.ok) return checked.answer;
    if (checked.view.type !== 'home') return this.refuse('views.publish', fail('invalid_arguments'), { userId });
    const existing = this.views.get(this.homes.get(userId) ?? '');
    if (existing) {
      this.replaceView(existing, checked.view);
      return ok({ view: this.viewAnswer(existing) });
    }
    const home = { ...this.detached(this.nextId('V'), checked.view), userId };
    this.views.set(home.id, home);
    this.homes.set(userId, home.id);
    this.noteChange();
    return ok({ view: this.viewAnswer(home) });
  }

  private checkView(
    method: string,
    given: unknown,
    userId: string | undefined,
  ): { ok: true; view: View } | { ok: false; answer: Answer } {
    const checked = check(viewSchema, given, '/view');
    if (checked.ok) return { ok: true, view: { ...checked.value, blocks: withSlackIds(checked.value.blocks) } };
    return {
      ok: false,
      answer: this.refuse(method, { status: 200, body: refusal('invalid_arguments', checked.problems) }, { userId }),
    };
  }

  private detached(id: string, view: View): OpenView {
    return { id, view, hash: this.nextHash(), revision: 0, rootId: id, previousId: null, errors: {} };
  }

  private replaceView(open: OpenView, view: View): void {
    open.view = view;
    open.hash = this.nextHash();
    open.revision += 1;
    open.errors = {};
    this.noteChange();
  }

  /** A view as Slack returns it from views.* calls and includes it in interaction payloads. */
  viewAnswer(open: OpenView, stateValues: Record<string, unknown> = {}): Record<string, unknown> {
    const { view } = open;
    const modal = view.type === 'modal' ? view : undefined;
    return {
      id: open.id,
      team_id: TEAM_ID,
      type: view.type,
      blocks: view.blocks,
      private_metadata: view.private_metadata ?? '',
      callback_id: view.callback_id ?? '',
      state: { values: stateValues },
      hash: open.hash,
      title: modal?.title ?? null,
      clear_on_close: modal?.clear_on_close ?? false,
      notify_on_close: modal?.notify_on_close ?? false,
      close: modal?.close ?? null,
      submit: modal?.submit ?? null,
      previous_view_id: open.previousId,
      root_view_id: open.rootId,
      app_id: APP_ID,
      external_id: view.external_id ?? '',
      app_installed_team_id: TEAM_ID,
      bot_id: BOT_ID,
      ...(open.userId === undefined ? {} : { user_id: open.userId }),
    };
  }

  // --- what people do -----------------------------------------------------------------------------------------

  /** What a person typed, shown to them alone, as their client shows a command it sent. */
  noteCommand(userId: string, channel: string, typed: string): void {
    this.addMessage({ channel, author: userId, visibleTo: userId, message: { text: typed }, via: 'command' });
  }

  /** An ordinary message a person posts in a channel: everyone sees it, the app is not told. */
  say(userId: string, channel: string, said: string): void {
    this.addMessage({ channel, author: userId, message: { text: said }, via: 'message' });
  }

  /** Slack's own notice to one person, e.g. that a command failed. */
  notice(userId: string, channel: string, said: string): void {
    this.addMessage({ channel, author: 'USLACKBOT', visibleTo: userId, message: { text: said }, via: 'slack' });
  }

  /** The modal a person sees: the top of their stack. */
  topModal(userId: string): OpenView | undefined {
    return this.views.get(this.stacks.get(userId)?.at(-1) ?? '');
  }

  modalDepth(userId: string): number {
    return this.stacks.get(userId)?.length ?? 0;
  }

  homeOf(userId: string): OpenView | undefined {
    return this.views.get(this.homes.get(userId) ?? '');
  }

  view(viewId: string): OpenView | undefined {
    return this.views.get(viewId);
  }

  /** Closes the top view of a person's stack, or the whole stack; returns the views closed, top first. */
  closeModal(userId: string, all: boolean): OpenView[] {
    const stack = this.stacks.get(userId) ?? [];
    const closing = all ? stack.splice(0).reverse() : stack.splice(-1);
    if (stack.length === 0) this.stacks.delete(userId);
    const closed = closing.flatMap((id) => this.views.get(id) ?? []);
    for (const open of closed) this.views.delete(open.id);
    if (closed.length > 0) this.noteChange();
    return closed;
  }

  /**
   * `sentRevision` is the view's revision when the submission left: an update the app made after it answered wins
   * over the answer's own update.
   */
  answerSubmission(
    userId: string,
    viewId: string,
    sentRevision: number,
    answer: Record<string, unknown>,
  ): { ok: true } | { ok: false; error: string; problems: string[] } {
    const open = this.views.get(viewId);
    if (!open) return { ok: true };
    const action = answer.response_action;
    if (action === 'errors') {
      const errors = answer.errors;
      const known = new Set(open.view.blocks.filter((b) => b.type === 'input').map((b) => b.block_id));
      if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) {
        return this.refuseAnswer(userId, 'invalid_arguments', ['errors must be an object [json-pointer:/errors]']);
      }
      const entries = Object.entries(errors).map(([block, message]) => [block, String(message)] as const);
      const unknown = entries.filter(([block]) => !known.has(block));
      if (unknown.length > 0) {
        const problems = unknown.map(([block]) => `no input block has the block_id ${block} [json-pointer:/errors]`);
        return this.refuseAnswer(userId, 'invalid_arguments', problems);
      }
      open.errors = Object.fromEntries(entries);
      open.revision += 1;
      this.noteChange();
      return { ok: true };
    }
    if (action === 'clear') {
      this.closeModal(userId, true);
      return { ok: true };
    }
    if (action === 'update' || action === 'push') {
      const checked = check(viewSchema, answer.view, '/view');
      if (!checked.ok) return this.refuseAnswer(userId, 'invalid_arguments', checked.problems);
      if (checked.value.type !== 'modal') return this.refuseAnswer(userId, 'invalid_arguments', ['must be modal']);
      const answered = { ...checked.value, blocks: withSlackIds(checked.value.blocks) };
      if (action === 'update') {
        if (open.revision === sentRevision) this.replaceView(open, answered);
        return { ok: true };
      }
      return this.pushAnswered(userId, answered);
    }
    if (action !== undefined) return this.refuseAnswer(userId, 'invalid_arguments', ['unknown response_action']);
    if (this.topModal(userId)?.id === viewId) this.closeModal(userId, false);
    return { ok: true };
  }

  private pushAnswered(
    userId: string,
    modal: ModalView,
  ): { ok: true } | { ok: false; error: string; problems: string[] } {
    const stack = this.stacks.get(userId) ?? [];
    if (stack.length >= MODAL_STACK) return this.refuseAnswer(userId, 'push_limit_reached', []);
    const id = this.nextId('V');
    const pushed: OpenView = {
      ...this.detached(id, modal),
      userId,
      rootId: stack[0] ?? id,
      previousId: stack.at(-1) ?? null,
    };
    this.views.set(id, pushed);
    this.stacks.set(userId, [...stack, id]);
    this.noteChange();
    return { ok: true };
  }

  private refuseAnswer(
    userId: string,
    error: string,
    problems: string[],
  ): { ok: false; error: string; problems: string[] } {
    this.refuse('view_submission answer', { status: 200, body: refusal(error, problems) }, { userId });
    return { ok: false, error, problems };
  }

  /** Records a refusal of the app's answer to an interaction (an options list, a slash command's body). */
  refuseInteraction(method: string, userId: string, error: string, problems: string[]): void {
    this.refuse(method, { status: 200, body: refusal(error, problems) }, { userId });
  }

  // --- reading ------------------------------------------------------------------------------------------------

  /** The messages the app posted with chat.postMessage, as they read now (rewritten, deleted ones gone), oldest first. */
  posted(channel?: string): Message[] {
    const conversation = channel === undefined ? undefined : this.conversation(channel);
    return this.messages.filter(
      (message) =>
        message.via === 'chat.postMessage' && (conversation === undefined || message.channel === conversation),
    );
  }

  /** Someone removes a message in Slack: later calls about it answer `message_not_found`. */
  removeMessage(channel: string, ts: string): void {
    const found = this.messageAt(channel, ts);
    if (found) this.discard(found);
  }

  /** Messages of a conversation that `userId` sees, oldest first. */
  conversationFor(channel: string, userId: string): Message[] {
    return this.messages.filter(
      (message) => message.channel === channel && (message.visibleTo === undefined || message.visibleTo === userId),
    );
  }

  /** Every refusal kept, oldest first. */
  refusals(): Refusal[] {
    return [...this.refused];
  }

  /** Refusals that concern `userId` or everyone, oldest first. */
  refusalsFor(userId: string): Refusal[] {
    return this.refused.filter((entry) => entry.userId === undefined || entry.userId === userId);
  }

  // --- bookkeeping --------------------------------------------------------------------------------------------

  private refuse(method: string, answer: Answer, about: { userId?: string } = {}): Answer {
    const error = text(answer.body.error);
    const problems = Array.isArray(answer.body.errors) ? answer.body.errors.map(String) : [];
    this.refused.push({ key: this.next(), at: this.options.now(), method, error, problems, userId: about.userId });
    if (this.refused.length > HISTORY) this.refused.shift();
    this.noteChange();
    return answer;
  }

  private addMessage(input: {
    channel: string;
    author: string;
    visibleTo?: string;
    message: MessageBody;
    via: Message['via'];
  }): Message {
    const added: Message = {
      key: this.next(),
      channel: input.channel,
      ts: this.nextTs(),
      author: input.author,
      ...(input.visibleTo === undefined ? {} : { visibleTo: input.visibleTo }),
      text: input.message.text ?? '',
      blocks: input.message.blocks ?? [],
      revision: 0,
      edits: 0,
      via: input.via,
    };
    this.messages.push(added);
    const inChannel = this.messages.filter((message) => message.channel === input.channel);
    if (inChannel.length > HISTORY) this.discard(inChannel[0] as Message);
    this.noteChange();
    return added;
  }

  private replaceMessage(message: Message, body: MessageBody): void {
    message.text = body.text ?? '';
    message.blocks = body.blocks ?? [];
    message.revision += 1;
    this.noteChange();
  }

  private discard(message: Message): void {
    const index = this.messages.indexOf(message);
    if (index >= 0) this.messages.splice(index, 1);
    this.noteChange();
  }

  /** The message a Web API call names by its channel argument (a channel, a DM, a user id) and ts. */
  private messageAt(channel: string, ts: string): Message | undefined {
    const conversation = this.conversation(channel);
    return conversation === undefined ? undefined : this.message(conversation, ts);
  }

  message(channel: string | undefined, ts: string): Message | undefined {
    return this.messages.find((message) => message.ts === ts && (channel === undefined || message.channel === channel));
  }

  /** Something a person could see changed: here, or beside what is kept here (a workflow step started or ended). */
  noteChange(): void {
    this.changes += 1;
    for (const listener of this.listeners) listener();
  }

  private next(): number {
    this.counter += 1;
    return this.counter;
  }

  private nextId(prefix: string): string {
    return `${prefix}${String(this.next()).padStart(6, '0')}${randomBytes(2).toString('hex').toUpperCase()}`;
  }

  private nextTs(): string {
    return `${Math.floor(this.options.now() / 1000)}.${String(this.next() % 1_000_000).padStart(6, '0')}`;
  }

  private nextHash(): string {
    return `${Math.floor(this.options.now() / 1000)}.${randomBytes(4).toString('hex')}`;
  }
}
