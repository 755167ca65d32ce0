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
 * @typedef {import('../workflows.js').WorkflowDraft} WorkflowDraft
 * @typedef {import('../workflows.js').InputValue} InputValue
 * @typedef {import('../workflow-runs.js').UiWorkflowRun} UiWorkflowRun
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
  workflowEditor: byId('workflow-editor', HTMLElement),
  workflowRuns: byId('workflow-runs', HTMLOListElement),
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
  /** The workflow being built in the Workflows panel, kept across redraws. */
  /** @type {WorkflowDraft} */
  workflow: { title: 'Workflow', steps: [] },
  /** A click, command or form sent waits for its answer: the app's next message drawn, new or rewritten. */
  awaited: false,
  /**
   * The key of the message that answered the person last: each rewrite of it (an outcome after "Working on it…") is
   * shown from its first line, where the person is looking. A new message the app posts after it (an agent's creation
   * answered, then the plan it leads to) takes its place, until the person acts again.
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
    const isNew = !drawn;
    if (!drawn || drawn.revision !== message.revision) {
      const item = drawMessage(message, channel);
      if (drawn) drawn.item.replaceWith(item);
      drawn = { revision: message.revision, item };
      page.drawn.set(message.key, drawn);
      added = true;
      if (message.author.app && (page.awaited || (isNew && page.answer !== undefined))) {
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
  const labels = state.people.map(
    (person) => `${person.name} (${person.role}${person.team ? `, @${person.team}` : ''})`,
  );
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
      `A workflow of Workflow Builder steps from ${state.app.name}, run as you from #voice-ops, one step after the ` +
      'other; an input is typed, or taken from an earlier step. A plan to confirm comes to your Messages tab; ' +
      'its step ends when you confirm or cancel it, and the next one starts once it has completed.';
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
 * The workflow being built, drawn once and again only when its steps change (so that what was typed stays), and the
 * workflows this person ran, with how each step ended.
 * @param {PageState['workflows']} workflows
 */
function drawWorkflows(workflows) {
  if (ui.workflowEditor.childElementCount === 0) drawEditor(workflows);
  ui.workflowRuns.replaceChildren(...workflows.runs.map(workflowRun));
  if (workflows.runs.length === 0) ui.workflowRuns.append(el('li', 'panel-note', 'None yet.'));
}

/**
 * @param {readonly UiStep[]} steps
 * @param {string} callbackId
 */
const stepOf = (steps, callbackId) => steps.find((step) => step.callbackId === callbackId);

/**
 * The ready-made workflows, the steps of the one being built with their inputs, a step to add, and Run.
 * @param {PageState['workflows']} workflows
 */
function drawEditor(workflows) {
  const { steps, samples } = workflows;
  const redraw = () => {
    ui.workflowEditor.replaceChildren();
    drawEditor(workflows);
  };
  const ready = el('p', 'workflow-samples', 'Ready-made: ');
  for (const sample of samples) {
    const button = el('button', 'bk-button', sample.title);
    button.type = 'button';
    button.addEventListener('click', () => {
      page.workflow = structuredClone(sample);
      redraw();
    });
    ready.append(button);
  }
  const list = el('ol', 'workflow-steps');
  list.setAttribute('aria-label', 'Steps of the workflow');
  page.workflow.steps.forEach((draft, index) => {
    const step = stepOf(steps, draft.callbackId);
    if (step) list.append(stepFields(step, index, steps, redraw));
  });

  const adding = el('select');
  adding.id = 'step-to-add';
  const addingLabel = el('label', undefined, 'Step to add');
  addingLabel.htmlFor = adding.id;
  adding.append(
    ...steps.map((step) => {
      const option = el('option', undefined, step.title);
      option.value = step.callbackId;
      return option;
    }),
  );
  const add = el('button', 'bk-button', 'Add step');
  add.type = 'button';
  add.addEventListener('click', () => {
    page.workflow = { title: 'Workflow', steps: [...page.workflow.steps, { callbackId: adding.value, inputs: {} }] };
    redraw();
  });
  const run = el('button', 'bk-button bk-primary', 'Run workflow');
  run.type = 'button';
  run.disabled = page.workflow.steps.length === 0;
  run.addEventListener('click', async () => {
    run.disabled = true;
    await post('/api/workflow', { workflow: page.workflow });
    run.disabled = false;
  });
  const tools = el('p', 'workflow-tools');
  tools.append(addingLabel, adding, add, run);
  ui.workflowEditor.append(ready, list, tools);
}

/**
 * One step of the workflow being built: each input typed, or taken from an earlier step's output.
 * @param {UiStep} step
 * @param {number} index
 * @param {readonly UiStep[]} steps
 * @param {() => void} redraw
 * @returns {HTMLLIElement}
 */
function stepFields(step, index, steps, redraw) {
  const draft = page.workflow.steps[index];
  const item = el('li', 'step-form');
  const group = el('fieldset');
  group.append(el('legend', undefined, `Step ${index + 1}: ${step.title}`));
  const remove = el('button', 'bk-button', `Remove step ${index + 1}`);
  remove.type = 'button';
  remove.addEventListener('click', () => {
    page.workflow = { title: 'Workflow', steps: withoutStep(page.workflow.steps, index) };
    redraw();
  });
  group.append(remove);
  if (step.note) group.append(el('p', 'step-note', step.note));
  // What each earlier step gives, as Workflow Builder offers its variables.
  const earlier = page.workflow.steps.slice(0, index).flatMap((before, at) =>
    (stepOf(steps, before.callbackId)?.outputs ?? []).map((output) => ({
      value: `${at + 1}:${output.name}`,
      text: `Step ${at + 1}'s ${output.title}`,
    })),
  );
  for (const input of step.inputs) {
    const id = `step-${index}-${input.name}`;
    const given = draft?.inputs[input.name];
    const label = el('label', undefined, input.required ? input.title : `${input.title} (optional)`);
    label.htmlFor = id;
    const field = el('input');
    field.id = id;
    field.placeholder = input.hint;
    field.spellcheck = false;
    field.value = given && 'value' in given ? given.value : '';
    field.addEventListener('input', () => setInput(index, input.name, { value: field.value }));
    const source = el('select');
    source.setAttribute('aria-label', `${input.title} comes from`);
    const typed = el('option', undefined, 'What is typed');
    typed.value = '';
    source.append(
      typed,
      ...earlier.map((choice) => {
        const option = el('option', undefined, choice.text);
        option.value = choice.value;
        return option;
      }),
    );
    source.value = given && 'step' in given ? `${given.step}:${given.output}` : '';
    field.hidden = source.value !== '';
    source.addEventListener('change', () => {
      const [at, output] = source.value.split(':');
      setInput(index, input.name, output ? { step: Number(at), output } : { value: field.value });
      field.hidden = source.value !== '';
    });
    group.append(label, source, field);
  }
  item.append(group);
  return item;
}

/**
 * @param {number} index
 * @param {string} name
 * @param {InputValue} value
 */
function setInput(index, name, value) {
  const draft = page.workflow.steps[index];
  if (draft) draft.inputs[name] = value;
}

/**
 * The steps without the one at `index`: what took its outputs is typed again, and later steps are counted anew.
 * @param {WorkflowDraft['steps']} steps
 * @param {number} index
 * @returns {WorkflowDraft['steps']}
 */
function withoutStep(steps, index) {
  const removed = index + 1;
  return steps
    .filter((_, at) => at !== index)
    .map((step) => ({
      ...step,
      inputs: Object.fromEntries(
        Object.entries(step.inputs).map(([name, given]) => {
          if (!('step' in given) || given.step < removed) return [name, given];
          return [name, given.step === removed ? { value: '' } : { ...given, step: given.step - 1 }];
        }),
      ),
    }));
}

/** What a step of a run shows for its state. */
const STEP_STATES = {
  'not started': 'Not started',
  running: 'Running: waiting for the change (a plan to confirm comes to Messages)',
  completed: 'Completed',
  failed: 'Failed',
};

/**
 * A workflow run: where it stands, and each step with what it was given and gave.
 * @param {UiWorkflowRun} run
 * @returns {HTMLLIElement}
 */
function workflowRun(run) {
  const item = el('li', 'workflow-run');
  const done = run.steps.every((step) => step.state === 'completed');
  const at = run.steps.findIndex((step) => step.state !== 'completed');
  const where = run.stopped ?? (done ? 'Completed: every step ran.' : `Running step ${at + 1} of ${run.steps.length}.`);
  item.append(
    el('strong', undefined, run.title),
    el('span', `step-state${run.stopped ? ' step-failed' : done ? ' step-completed' : ''}`, where),
  );
  const steps = el('ol', 'step-runs');
  for (const [index, step] of run.steps.entries()) {
    const line = el('li', 'step-run');
    const given = step.inputs.map((input) => `${input.title}: ${input.value}`).join(' · ');
    const gave = step.outputs.map((output) => `${output.title}: ${output.value}`);
    line.append(
      el('span', undefined, `${index + 1}. ${step.title}`),
      el('span', 'step-inputs', given),
      el('span', `step-state step-${step.state.replace(' ', '-')}`, [STEP_STATES[step.state], ...gave].join(' · ')),
    );
    steps.append(line);
  }
  item.append(steps);
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
