// @ts-check
// The playground's client: what one person sees in Slack (channels, the app's Home and Messages tabs, modals) and
// what they can do there. It reads the state from the playground server when told that something changed
// (server-sent events), and sends each act as JSON; the server turns it into what Slack would send the app.
import { el, renderBlocks, renderInline, Values } from './blocks.js';

/**
 * @typedef {import('../render.js').PageState} PageState
 * @typedef {import('../render.js').UiMessage} UiMessage
 * @typedef {import('../render.js').UiView} UiView
 * @typedef {import('../render.js').UiOption} UiOption
 * @typedef {import('../render.js').UiConfirm} UiConfirm
 * @typedef {import('../workflows.js').UiStep} UiStep
 * @typedef {import('../workflows.js').UiStepRun} UiStepRun
 * @typedef {import('./blocks.js').Surface} Surface
 * @typedef {{ kind: 'message', channel: string, ts: string } | { kind: 'view', viewId: string }} Target
 */

const HOME = 'home';
const MESSAGES = 'messages';
const WORKFLOWS = 'workflows';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
function byId(id, type) {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no ${id}`);
  return found;
}

const ui = {
  user: byId('user', HTMLSelectElement),
  role: byId('role', HTMLElement),
  channelTabs: byId('channel-tabs', HTMLElement),
  appTabs: byId('app-tabs', HTMLElement),
  panel: byId('panel', HTMLElement),
  panelTitle: byId('panel-title', HTMLElement),
  panelNote: byId('panel-note', HTMLElement),
  messages: byId('messages', HTMLOListElement),
  home: byId('home', HTMLElement),
  workflows: byId('workflows', HTMLElement),
  stepForms: byId('step-forms', HTMLElement),
  stepRuns: byId('step-runs', HTMLOListElement),
  composer: byId('composer', HTMLFormElement),
  message: byId('message', HTMLInputElement),
  refusals: byId('refusals', HTMLElement),
  refusalList: byId('refusal-list', HTMLOListElement),
  connection: byId('connection', HTMLElement),
  modal: byId('modal', HTMLDialogElement),
  confirm: byId('confirm', HTMLDialogElement),
  welcome: byId('welcome', HTMLElement),
  startOver: byId('start-over', HTMLButtonElement),
};

const page = {
  /** @type {string} */
  user: new URLSearchParams(location.search).get('user') ?? '',
  /** The people picker's labels as drawn: a role changed in Settings draws them again. */
  peopleLabels: '',
  /** A channel id, HOME or MESSAGES. */
  tab: '',
  /** @type {PageState | undefined} */
  state: undefined,
  /** What was typed, newest last, for ↑ and ↓. */
  /** @type {string[]} */
  history: [],
  historyAt: 0,
  /** Values of inputs and selects by surface (view id or message key), kept across redraws. */
  /** @type {Map<string, Values>} */
  values: new Map(),
  /** @type {Map<number, { revision: number, item: HTMLLIElement }>} */
  drawn: new Map(),
  /** What the modal and Home tab show now: a view id and revision. */
  modalShown: '',
  homeShown: '',
  /** A click, command or form sent waits for its answer: the app's next message drawn, new or rewritten. */
  awaited: false,
  /**
   * The key of the message that answered the person last: each rewrite of it (an outcome after "Working on it…") is
   * shown from its first line, where the person is looking.
   * @type {number | undefined}
   */
  answer: undefined,
};

/** The person acted: what the app answers next is brought into view. */
function awaitAnswer() {
  page.awaited = true;
  page.answer = undefined;
}

/**
 * @param {string} path
 * @param {Record<string, unknown>} body
 * @returns {Promise<{ ok: boolean, reason?: string, options?: UiOption[] }>}
 */
async function post(path, body) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: page.user, ...body }),
  });
  const answer = await response.json();
  if (!answer.ok && answer.reason) ui.connection.textContent = answer.reason;
  return answer;
}

/**
 * @param {string} key
 * @returns {Values}
 */
function valuesOf(key) {
  const found = page.values.get(key);
  if (found) return found;
  const created = new Values();
  page.values.set(key, created);
  return created;
}

/**
 * Asks as Slack's confirm dialog does; resolves true for the confirm button.
 * @param {UiConfirm} confirm
 * @returns {Promise<boolean>}
 */
function askToConfirm(confirm) {
  const dialog = ui.confirm;
  const title = el('h2', 'modal-title', confirm.title);
  title.id = 'confirm-title';
  const text = el('div', 'modal-body');
  text.id = 'confirm-text';
  text.append(renderInline(confirm.text));
  const deny = el('button', 'bk-button', confirm.deny);
  deny.type = 'button';
  const accept = el('button', `bk-button ${confirm.style === 'danger' ? 'bk-danger' : 'bk-primary'}`, confirm.confirm);
  accept.type = 'button';
  const footer = el('div', 'modal-footer');
  footer.append(deny, accept);
  dialog.replaceChildren(title, text, footer);
  dialog.showModal();
  return new Promise((resolve) => {
    const done = (/** @type {boolean} */ answer) => {
      dialog.close();
      resolve(answer);
    };
    deny.addEventListener('click', () => done(false));
    accept.addEventListener('click', () => done(true));
    dialog.addEventListener('cancel', () => resolve(false), { once: true });
  });
}

/**
 * The surface a message or view offers its elements.
 * @param {string} key
 * @param {Target} target
 * @returns {Surface}
 */
function surfaceOf(key, target) {
  const values = valuesOf(key);
  return {
    values,
    act: (blockId, actionId, selected) => {
      awaitAnswer();
      void post('/api/act', { target, blockId, actionId, ...(selected ? { selected } : {}), state: values.toState() });
    },
    suggest: async (blockId, actionId, typed) => {
      const answer = await post('/api/suggest', { target, blockId, actionId, value: typed });
      return answer.options ?? [];
    },
    confirm: askToConfirm,
  };
}

// --- drawing ------------------------------------------------------------------------------------------------------

/** @param {string} ts */
function timeOf(ts) {
  const date = new Date(Number(ts.split('.')[0]) * 1000);
  return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/**
 * @param {UiMessage} message
 * @param {string} channel
 * @returns {HTMLLIElement}
 */
function drawMessage(message, channel) {
  const item = el('li', `message${message.ephemeral ? ' ephemeral' : ''} via-${message.via}`);
  item.dataset.ts = message.ts;
  const meta = el('p', 'message-meta');
  meta.append(el('strong', 'message-author', message.author.name));
  if (message.author.app) meta.append(el('span', 'badge', 'APP'));
  meta.append(el('time', 'message-time', timeOf(message.ts)));
  if (message.ephemeral) meta.append(el('span', 'only-you', 'Only visible to you'));
  item.append(meta);
  const body = el('div', 'message-body');
  if (message.blocks.length > 0) {
    body.append(
      renderBlocks(message.blocks, surfaceOf(`m${message.key}`, { kind: 'message', channel, ts: message.ts })),
    );
  } else {
    body.append(renderInline(message.text));
  }
  item.append(body);
  return item;
}

/**
 * @param {UiMessage[]} messages
 * @param {string} channel
 */
function drawConversation(messages, channel) {
  const atBottom = ui.panel.scrollHeight - ui.panel.scrollTop - ui.panel.clientHeight < 40;
  const keep = new Set(messages.map((message) => message.key));
  for (const [key, { item }] of page.drawn) {
    if (!keep.has(key)) {
      item.remove();
      page.drawn.delete(key);
    }
  }
  let previous = /** @type {Element | null} */ (null);
  let added = false;
  let answered = false;
  for (const message of messages) {
    let drawn = page.drawn.get(message.key);
    if (!drawn || drawn.revision !== message.revision) {
      const item = drawMessage(message, channel);
      if (drawn) drawn.item.replaceWith(item);
      drawn = { revision: message.revision, item };
      page.drawn.set(message.key, drawn);
      added = true;
      if (page.awaited && message.author.app) {
        page.awaited = false;
        page.answer = message.key;
      }
      if (message.key === page.answer) answered = true;
    }
    const expectedPlace = previous ? previous.nextElementSibling : ui.messages.firstElementChild;
    if (expectedPlace !== drawn.item) {
      if (previous) previous.after(drawn.item);
      else ui.messages.prepend(drawn.item);
    }
    previous = drawn.item;
  }
  ui.messages.hidden = false;
  if (messages.length === 0 && ui.welcome.hidden) ui.panelNote.textContent = 'Nothing here yet.';
  const answer = answered && page.answer !== undefined ? page.drawn.get(page.answer)?.item : undefined;
  if (answer) showAnswer(answer);
  else if (added && atBottom) ui.panel.scrollTop = ui.panel.scrollHeight;
}

/**
 * An answer is read from its first line: all of it in view when it fits, else its top at the top of the panel (a
 * buy's outcome followed by the search again: "Bought" stays in sight).
 * @param {HTMLElement} item
 */
function showAnswer(item) {
  item.scrollIntoView({ block: item.offsetHeight > ui.panel.clientHeight ? 'start' : 'nearest' });
}

/**
 * @param {string} id
 * @param {string} name
 * @param {HTMLElement} list
 */
function tab(id, name, list) {
  let button = /** @type {HTMLButtonElement | null} */ (list.querySelector(`[data-tab="${CSS.escape(id)}"]`));
  if (!button) {
    button = el('button', 'tab', name);
    button.type = 'button';
    button.setAttribute('role', 'tab');
    button.dataset.tab = id;
    button.id = `tab-${id}`;
    button.setAttribute('aria-controls', 'panel');
    button.addEventListener('click', () => select(id));
    list.append(button);
  }
  const selected = page.tab === id;
  button.setAttribute('aria-selected', String(selected));
  button.tabIndex = selected ? 0 : -1;
  return button;
}

/** Forgets what the panel and modal show, so that the next draw starts afresh. */
function forgetDrawn() {
  page.drawn.clear();
  ui.messages.replaceChildren();
  page.modalShown = '';
  page.homeShown = '';
}

/** @param {string} id */
function select(id) {
  if (page.tab === id) return;
  page.tab = id;
  forgetDrawn();
  // Slack tells the app each time a person opens its Home tab.
  if (id === HOME) void post('/api/home', {});
  draw();
  ui.panel.focus();
}

/** What each role may do, under the person picker. */
const ROLE_WORDS = {
  admin: 'An admin: may change and remove, and change roles in Settings.',
  operator: 'An operator: may buy, create and map.',
  viewer: 'A viewer: looks, changes nothing.',
};

function draw() {
  const state = page.state;
  if (!state) return;
  const labels = state.people.map((person) => `${person.name} (${person.role})`);
  if (labels.join('\n') !== page.peopleLabels) {
    page.peopleLabels = labels.join('\n');
    ui.user.replaceChildren(
      ...state.people.map((person, index) => {
        const option = el('option', undefined, labels[index]);
        option.value = person.id;
        return option;
      }),
    );
  }
  ui.user.value = state.me.id;
  // The role the app holds now: Ada may change anyone's in Settings.
  ui.role.textContent = ROLE_WORDS[state.me.role] ?? '';

  const channels = state.channels;
  if (!page.tab) page.tab = channels[0]?.id ?? HOME;
  for (const channel of channels) tab(channel.id, `#${channel.name}`, ui.channelTabs);
  tab(HOME, 'Home', ui.appTabs);
  tab(MESSAGES, 'Messages', ui.appTabs);
  tab(WORKFLOWS, 'Workflows', ui.appTabs);
  ui.panel.setAttribute('aria-labelledby', `tab-${page.tab}`);

  const channel = channels.find((candidate) => candidate.id === page.tab);
  ui.panelNote.textContent = '';
  ui.composer.hidden = !channel;
  ui.workflows.hidden = page.tab !== WORKFLOWS;
  ui.messages.hidden = page.tab === WORKFLOWS;
  drawWelcome(state.welcome, channel?.id);
  if (channel) {
    ui.panelTitle.textContent = `#${channel.name}`;
    if (channel.announcements) ui.panelNote.textContent = `Where ${state.app.name} announces every change.`;
    ui.home.hidden = true;
    drawConversation(state.conversations[channel.id] ?? [], channel.id);
  } else if (page.tab === MESSAGES) {
    ui.panelTitle.textContent = `${state.app.name}: Messages`;
    ui.home.hidden = true;
    drawConversation(state.direct, `D${state.me.id}`);
    if (state.direct.length === 0)
      ui.panelNote.textContent = `${state.app.name} writes here when a reply cannot reach you any other way.`;
  } else if (page.tab === WORKFLOWS) {
    ui.panelTitle.textContent = `${state.app.name}: Workflows`;
    ui.panelNote.textContent =
      `${state.app.name}'s Workflow Builder steps, run as you from #voice-ops, as a workflow there would run them. ` +
      'A plan to confirm comes to your Messages tab; the step ends when you confirm or cancel it.';
    ui.home.hidden = true;
    drawWorkflows(state.workflows);
  } else {
    ui.panelTitle.textContent = `${state.app.name}: Home`;
    ui.messages.hidden = true;
    ui.home.hidden = false;
    drawHome(state.home);
  }
  drawRefusals(state);
  drawModal(state.modal);
}

/**
 * The playground's first message, in its channel: what Voice Ops manages, and commands that run as if typed.
 * @param {PageState['welcome']} welcome
 * @param {string | undefined} channel the channel shown, if one is
 */
function drawWelcome(welcome, channel) {
  ui.welcome.hidden = channel !== welcome.channel;
  if (ui.welcome.hidden || ui.welcome.childElementCount > 0) return;
  const meta = el('p', 'message-meta');
  meta.append(el('strong', 'message-author', 'Playground'));
  const text = el('div', 'message-body');
  text.append(renderInline(welcome.text));
  const tries = el('ul', 'welcome-tries');
  for (const { command, what } of welcome.tries) {
    const button = el('button', 'bk-button', command);
    button.type = 'button';
    button.addEventListener('click', () => send(command));
    const item = el('li');
    item.append(button, el('span', 'welcome-what', what));
    tries.append(item);
  }
  ui.welcome.append(meta, text, tries);
}

/** @param {UiView | undefined} home */
function drawHome(home) {
  const shown = home ? `${home.id}:${home.revision}` : '';
  if (shown === page.homeShown && ui.home.childElementCount > 0) return;
  page.homeShown = shown;
  if (!home) {
    ui.home.replaceChildren(el('p', 'panel-note', 'Opening the Home tab…'));
    return;
  }
  ui.home.replaceChildren(renderBlocks(home.blocks, surfaceOf(home.id, { kind: 'view', viewId: home.id })));
}

/**
 * Each step as a small form of its inputs with a Run button, drawn once (so that what was typed stays), and the
 * steps this person ran, with how each ended.
 * @param {PageState['workflows']} workflows
 */
function drawWorkflows(workflows) {
  if (ui.stepForms.childElementCount === 0) ui.stepForms.append(...workflows.steps.map(stepForm));
  ui.stepRuns.replaceChildren(...workflows.runs.map(stepRun));
  if (workflows.runs.length === 0) ui.stepRuns.append(el('li', 'panel-note', 'None yet.'));
}

/**
 * @param {UiStep} step
 * @returns {HTMLFormElement}
 */
function stepForm(step) {
  const form = el('form', 'step-form');
  form.setAttribute('aria-label', step.title);
  form.append(el('h3', undefined, step.title));
  for (const input of step.inputs) {
    const id = `step-${step.callbackId}-${input.name}`;
    const label = el('label', undefined, input.required ? input.title : `${input.title} (optional)`);
    label.htmlFor = id;
    const field = el('input');
    field.id = id;
    field.name = input.name;
    field.placeholder = input.hint;
    field.required = input.required;
    field.spellcheck = false;
    form.append(label, field);
  }
  const run = el('button', 'bk-button bk-primary', `Run ${step.title}`);
  run.type = 'submit';
  form.append(run);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const inputs = Object.fromEntries(
      step.inputs.map((input) => [input.name, String(new FormData(form).get(input.name) ?? '')]),
    );
    run.disabled = true;
    await post('/api/step', { callbackId: step.callbackId, inputs });
    run.disabled = false;
  });
  return form;
}

/**
 * @param {UiStepRun} run
 * @returns {HTMLLIElement}
 */
function stepRun(run) {
  const item = el('li', 'step-run');
  const typed = Object.entries(run.inputs).map(([name, value]) => `${name}: ${String(value)}`);
  item.append(el('strong', undefined, run.title), el('span', 'step-inputs', typed.join(' · ')));
  if (!run.end) item.append(el('span', 'step-state', 'Running: waiting for the change (a plan comes to Messages)'));
  else if (run.end.outcome === 'failed') item.append(el('span', 'step-state step-failed', `Failed: ${run.end.error}`));
  else {
    const outputs = Object.entries(run.end.outputs).map(([name, value]) => `${name}: ${String(value)}`);
    item.append(el('span', 'step-state step-completed', `Completed · ${outputs.join(' · ')}`));
  }
  return item;
}

/** @param {PageState} state */
function drawRefusals(state) {
  ui.refusals.hidden = state.refusals.length === 0;
  ui.refusalList.replaceChildren(
    ...state.refusals
      .slice(-5)
      .reverse()
      .map((refusal) => {
        const item = el('li', 'refusal');
        item.append(el('strong', undefined, `${refusal.method}: ${refusal.error}`));
        for (const problem of refusal.problems) item.append(el('span', 'problem', problem));
        return item;
      }),
  );
}

/** @param {UiView | undefined} view */
function drawModal(view) {
  const dialog = ui.modal;
  if (!view) {
    page.modalShown = '';
    if (dialog.open) dialog.close();
    return;
  }
  const shown = `${view.id}:${view.revision}`;
  if (shown === page.modalShown && dialog.open) return;
  page.modalShown = shown;
  const title = el('h2', 'modal-title', view.title);
  title.id = 'modal-title';
  const dismiss = el('button', 'modal-dismiss', '×');
  dismiss.type = 'button';
  dismiss.setAttribute('aria-label', 'Dismiss');
  dismiss.addEventListener('click', () => void post('/api/close', { viewId: view.id, all: true }));
  const header = el('div', 'modal-header');
  header.append(title, dismiss);
  const body = el('div', 'modal-body');
  body.append(renderBlocks(view.blocks, surfaceOf(view.id, { kind: 'view', viewId: view.id })));
  const footer = el('div', 'modal-footer');
  const close = el('button', 'bk-button', view.close);
  close.type = 'button';
  close.addEventListener('click', () => void post('/api/close', { viewId: view.id, all: false }));
  footer.append(close);
  if (view.submit) {
    const submit = el('button', 'bk-button bk-primary', view.submit);
    submit.type = 'button';
    submit.addEventListener('click', async () => {
      submit.disabled = true;
      awaitAnswer();
      await post('/api/submit', { viewId: view.id, state: valuesOf(view.id).toState() });
      submit.disabled = false;
    });
    footer.append(submit);
  }
  dialog.replaceChildren(header, body, footer);
  if (!dialog.open) dialog.showModal();
}

// --- reading the state --------------------------------------------------------------------------------------------

let fetching = false;
let again = false;

async function refresh() {
  if (fetching) {
    again = true;
    return;
  }
  fetching = true;
  try {
    do {
      again = false;
      const asked = page.user;
      const response = await fetch(`/api/state?user=${encodeURIComponent(asked)}`);
      if (!response.ok) throw new Error(`the playground answered ${response.status}`);
      const state = await response.json();
      // The person was switched while this was on its way: the answer is someone else's view; ask again.
      if (asked !== page.user) {
        again = true;
        continue;
      }
      page.state = state;
      // A user the playground does not know (a stale ?user=) becomes the one it chose.
      if (page.state && page.user !== page.state.me.id) page.user = page.state.me.id;
      draw();
    } while (again);
  } finally {
    fetching = false;
  }
}

function listen() {
  const events = new EventSource('/api/events');
  events.addEventListener('change', () => void refresh());
  events.addEventListener('open', () => {
    ui.connection.textContent = '';
  });
  events.addEventListener('error', () => {
    ui.connection.textContent = 'The playground is not answering; reconnecting…';
  });
}

// --- what a person does -------------------------------------------------------------------------------------------

ui.user.addEventListener('change', () => {
  page.user = ui.user.value;
  forgetDrawn();
  history.replaceState(null, '', `?user=${encodeURIComponent(page.user)}`);
  if (page.tab === HOME) void post('/api/home', {});
  void refresh();
});

/**
 * Sends what a person typed (or a command they clicked) in the open channel; ↑ recalls it.
 * @param {string} text
 */
function send(text) {
  page.history.push(text);
  page.historyAt = page.history.length;
  awaitAnswer();
  void post('/api/type', { channel: page.tab, text });
}

ui.composer.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = ui.message.value.trim();
  if (!text) return;
  ui.message.value = '';
  send(text);
});

/**
 * Says why something will not run, in a dialog with one button that only closes it.
 * @param {string} title
 * @param {string[]} paragraphs
 * @returns {Promise<void>}
 */
function tell(title, paragraphs) {
  const dialog = ui.confirm;
  const heading = el('h2', 'modal-title', title);
  heading.id = 'confirm-title';
  const text = el('div', 'modal-body');
  text.id = 'confirm-text';
  text.append(...paragraphs.map((paragraph) => el('p', '', paragraph)));
  const close = el('button', 'bk-button bk-primary', 'OK');
  close.type = 'button';
  const footer = el('div', 'modal-footer');
  footer.append(close);
  dialog.replaceChildren(heading, text, footer);
  dialog.showModal();
  return new Promise((resolve) => {
    const done = () => {
      dialog.close();
      resolve();
    };
    close.addEventListener('click', done);
    dialog.addEventListener('cancel', () => resolve(), { once: true });
  });
}

const NOT_HERE = 'Start over does not run here';
const BREAK = { t: /** @type {const} */ ('br') };

// Start over destroys every number, agent and message of the playground: asked first, as Slack asks before a loss,
// saying exactly what goes and what stays; where it would remove what is not the playground's alone (a shared
// Postgres database, a file it did not create), it says why and offers nothing to press.
ui.startOver.addEventListener('click', async () => {
  const response = await fetch('/api/start-over');
  /** @type {{ ok: boolean, says: string[] }} */
  const plan = await response.json();
  if (!plan.ok) {
    await tell(NOT_HERE, plan.says);
    return;
  }
  const sure = await askToConfirm({
    title: 'Start over?',
    text: plan.says.flatMap((paragraph, at) => [
      ...(at > 0 ? [BREAK, BREAK] : []),
      { t: /** @type {const} */ ('text'), text: paragraph },
    ]),
    confirm: 'Start over',
    deny: 'Keep it',
    style: 'danger',
  });
  if (!sure) return;
  ui.startOver.disabled = true;
  const answer = await post('/api/start-over', {});
  ui.startOver.disabled = false;
  if (!answer.ok) {
    await tell(NOT_HERE, [answer.reason ?? 'Start over failed.', 'Nothing is removed or restarted.']);
    return;
  }
  forgetDrawn();
  page.values.clear();
  if (page.tab === HOME) void post('/api/home', {});
  void refresh();
});

ui.message.addEventListener('keydown', (event) => {
  if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
  if (page.history.length === 0) return;
  event.preventDefault();
  const step = event.key === 'ArrowUp' ? -1 : 1;
  page.historyAt = Math.min(page.history.length, Math.max(0, page.historyAt + step));
  ui.message.value = page.history[page.historyAt] ?? '';
});

// Escape closes the modal as its × does; the app hears of it when it asked to.
ui.modal.addEventListener('cancel', (event) => {
  event.preventDefault();
  const view = page.state?.modal;
  if (view) void post('/api/close', { viewId: view.id, all: true });
});

listen();
void refresh();
