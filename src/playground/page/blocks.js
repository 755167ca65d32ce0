// @ts-check
// Block Kit and mrkdwn, drawn as Slack's client draws them, from the data render.ts prepares. Every string from the
// app becomes a text node or an attribute value: nothing here parses HTML, so no name or message can become markup.

/**
 * @typedef {import('../render.js').UiBlock} UiBlock
 * @typedef {import('../render.js').UiElement} UiElement
 * @typedef {import('../render.js').UiOption} UiOption
 * @typedef {import('../render.js').UiConfirm} UiConfirm
 * @typedef {import('../mrkdwn.js').Inline} Inline
 * @typedef {import('../payloads.js').StateValue} StateValue
 * @typedef {import('../payloads.js').StateValues} StateValues
 */

/**
 * What a surface (a message, a modal, the Home tab) lets its elements do.
 * @typedef {object} Surface
 * @property {Values} values what its inputs and selects hold, as Slack's `state.values`
 * @property {(blockId: string, actionId: string, selected?: UiOption) => void} act a button pressed, or an option chosen outside an input block
 * @property {(blockId: string, actionId: string, typed: string) => Promise<UiOption[]>} suggest the app's options for a type-ahead
 * @property {(confirm: UiConfirm) => Promise<boolean>} confirm asks the person, as Slack's confirm dialog does
 */

let counter = 0;
const uid = (/** @type {string} */ prefix) => `${prefix}-${++counter}`;

/** `1 option`, `3 options`: the noun agrees with the count. */
const counted = (/** @type {number} */ value, /** @type {string} */ noun) =>
  `${value} ${value === 1 ? noun : `${noun}s`}`;

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {string} [text]
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

/**
 * mrkdwn, as formatted text.
 * @param {Inline[]} nodes
 * @returns {DocumentFragment}
 */
export function renderInline(nodes) {
  const fragment = document.createDocumentFragment();
  for (const node of nodes) fragment.append(inlineNode(node));
  return fragment;
}

/**
 * @param {Inline} node
 * @returns {Node}
 */
function inlineNode(node) {
  switch (node.t) {
    case 'text':
      return document.createTextNode(node.text);
    case 'br':
      return el('br');
    case 'code':
      return el('code', 'bk-code', node.text);
    case 'pre':
      return el('pre', 'bk-pre', node.text);
    case 'mention':
      return el('span', `bk-mention bk-mention-${node.kind}`, node.text);
    case 'link': {
      if (!SAFE_LINK.test(node.href)) return renderInline(node.children);
      const link = el('a', 'bk-link');
      link.href = node.href;
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
      link.append(renderInline(node.children));
      return link;
    }
    default: {
      const tag = { bold: 'strong', italic: 'em', strike: 's', quote: 'blockquote' }[node.t];
      const wrapper = el(/** @type {'strong' | 'em' | 's' | 'blockquote'} */ (tag));
      wrapper.append(renderInline(node.children));
      return wrapper;
    }
  }
}

/** The values of a surface's inputs and selects, kept across redraws as Slack keeps them across views.update. */
export class Values {
  constructor() {
    /** @type {Map<string, Map<string, StateValue>>} */
    this.byBlock = new Map();
  }

  /**
   * @param {string} blockId
   * @param {string} actionId
   * @returns {StateValue | undefined}
   */
  get(blockId, actionId) {
    return this.byBlock.get(blockId)?.get(actionId);
  }

  /**
   * @param {string} blockId
   * @param {string} actionId
   * @param {StateValue} value
   */
  set(blockId, actionId, value) {
    const block = this.byBlock.get(blockId) ?? new Map();
    block.set(actionId, value);
    this.byBlock.set(blockId, block);
  }

  /** @returns {StateValues} */
  toState() {
    /** @type {StateValues} */
    const state = {};
    for (const [blockId, actions] of this.byBlock) state[blockId] = Object.fromEntries(actions);
    return state;
  }
}

/**
 * @param {UiOption} option
 * @returns {{ text: { type: 'plain_text', text: string, emoji: boolean }, value: string }}
 */
const selectedOption = (option) => ({
  text: { type: 'plain_text', text: option.text, emoji: true },
  value: option.value,
});

/**
 * Blocks, in order; a block the playground cannot draw is shown as a placeholder.
 * @param {UiBlock[]} blocks
 * @param {Surface} surface
 * @returns {DocumentFragment}
 */
export function renderBlocks(blocks, surface) {
  const fragment = document.createDocumentFragment();
  for (const block of blocks) fragment.append(renderBlock(block, surface));
  return fragment;
}

/**
 * @param {UiBlock} block
 * @param {Surface} surface
 * @returns {HTMLElement}
 */
function renderBlock(block, surface) {
  switch (block.t) {
    case 'section': {
      const section = el('div', 'bk-section');
      const body = el('div', 'bk-section-body');
      if (block.text) {
        const text = el('div', 'bk-text');
        text.append(renderInline(block.text));
        body.append(text);
      }
      if (block.fields.length > 0) {
        const fields = el('div', 'bk-fields');
        for (const field of block.fields) {
          const cell = el('div', 'bk-field');
          cell.append(renderInline(field));
          fields.append(cell);
        }
        body.append(fields);
      }
      section.append(body);
      if (block.accessory) {
        const accessory = el('div', 'bk-accessory');
        accessory.append(renderElement(block.accessory, block.blockId, surface, { inInput: false }));
        section.append(accessory);
      }
      return section;
    }
    case 'header':
      return el('h3', 'bk-header', block.text);
    case 'divider':
      return el('hr', 'bk-divider');
    case 'context': {
      const context = el('div', 'bk-context');
      for (const part of block.elements) {
        if (part.t === 'image') context.append(image(part.alt));
        else {
          const text = el('span', 'bk-context-text');
          text.append(renderInline(part.text));
          context.append(text);
        }
      }
      return context;
    }
    case 'actions': {
      const actions = el('div', 'bk-actions');
      for (const element of block.elements)
        actions.append(renderElement(element, block.blockId, surface, { inInput: false }));
      return actions;
    }
    case 'input': {
      const input = el('div', 'bk-input');
      const id = uid('input');
      const label = el('label', 'bk-label', block.label);
      label.htmlFor = id;
      const heading = el('div', 'bk-input-label');
      heading.append(label);
      // Beside the label, not in it: the field's name stays the label alone.
      if (block.optional) heading.append(el('span', 'bk-optional', ' (optional)'));
      input.append(heading);
      const control = renderElement(block.element, block.blockId, surface, { inInput: true, id, label: block.label });
      input.append(control);
      if (block.hint) input.append(el('p', 'bk-hint', block.hint));
      if (block.error !== undefined) {
        const error = el('p', 'bk-error', block.error);
        error.id = uid('error');
        error.setAttribute('role', 'alert');
        const field = control.id === id ? control : control.querySelector(`#${id}`);
        field?.setAttribute('aria-invalid', 'true');
        field?.setAttribute('aria-describedby', error.id);
        input.classList.add('bk-invalid');
        input.append(error);
      }
      return input;
    }
    default:
      return unsupported(`block: ${block.type}`);
  }
}

/**
 * @param {string} what
 * @returns {HTMLElement}
 */
function unsupported(what) {
  const note = el('div', 'bk-unsupported', `Unsupported ${what}. The playground cannot draw it; Slack would.`);
  note.setAttribute('role', 'note');
  return note;
}

/**
 * @param {string} alt
 * @returns {HTMLElement}
 */
function image(alt) {
  const shown = el('span', 'bk-image', `🖼 ${alt}`);
  shown.setAttribute('role', 'img');
  shown.setAttribute('aria-label', alt);
  return shown;
}

/**
 * @param {UiElement} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ inInput: boolean, id?: string, label?: string }} place
 * @returns {HTMLElement}
 */
function renderElement(element, blockId, surface, place) {
  switch (element.t) {
    case 'button': {
      const button = el('button', `bk-button${element.style ? ` bk-${element.style}` : ''}`, element.text);
      button.type = 'button';
      button.addEventListener('click', async () => {
        if (element.confirm && !(await surface.confirm(element.confirm))) return;
        if (element.url && SAFE_LINK.test(element.url)) window.open(element.url, '_blank', 'noopener,noreferrer');
        surface.act(blockId, element.actionId);
      });
      return button;
    }
    case 'static_select':
      return staticSelect(element, blockId, surface, place);
    case 'external_select':
      return externalSelect(element, blockId, surface, place);
    case 'multi_external_select':
      return multiExternalSelect(element, blockId, surface, place);
    // Outside a form Slack would send the app each change at once, which the playground does not: not drawn there.
    case 'multi_users_select':
    case 'multi_conversations_select':
      return place.inInput ? workspacePicker(element, blockId, surface, place) : unsupported(`element: ${element.t}`);
    case 'checkboxes':
      return place.inInput ? checkboxes(element, blockId, surface, place) : unsupported('element: checkboxes');
    case 'plain_text_input': {
      const field = element.multiline ? el('textarea', 'bk-field-input') : el('input', 'bk-field-input');
      if (field instanceof HTMLInputElement) field.type = 'text';
      if (place.id) field.id = place.id;
      if (element.placeholder) field.placeholder = element.placeholder;
      if (element.maxLength !== undefined) field.maxLength = element.maxLength;
      const kept = surface.values.get(blockId, element.actionId);
      field.value = kept?.type === 'plain_text_input' ? (kept.value ?? '') : element.initial;
      const store = () =>
        surface.values.set(blockId, element.actionId, {
          type: 'plain_text_input',
          value: field.value === '' ? null : field.value,
        });
      store();
      field.addEventListener('input', store);
      return field;
    }
    case 'image':
      return image(element.alt);
    default:
      return unsupported(`element: ${element.type}`);
  }
}

/**
 * @param {Extract<UiElement, { t: 'static_select' }>} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ inInput: boolean, id?: string, label?: string }} place
 * @returns {HTMLElement}
 */
function staticSelect(element, blockId, surface, place) {
  const select = el('select', 'bk-select');
  if (place.id) select.id = place.id;
  else select.setAttribute('aria-label', element.placeholder);
  const placeholder = el('option', undefined, element.placeholder);
  placeholder.value = '';
  placeholder.disabled = true;
  select.append(placeholder);
  for (const option of element.options) {
    const choice = el('option', undefined, option.text);
    choice.value = option.value;
    select.append(choice);
  }
  const kept = surface.values.get(blockId, element.actionId);
  const chosen = kept?.type === 'static_select' ? kept.selected_option?.value : element.initial?.value;
  select.value = element.options.some((option) => option.value === chosen) ? (chosen ?? '') : '';
  const current = () => element.options.find((option) => option.value === select.value);
  const store = () => {
    const option = current();
    surface.values.set(blockId, element.actionId, {
      type: 'static_select',
      selected_option: option ? selectedOption(option) : null,
    });
  };
  store();
  select.addEventListener('change', async () => {
    store();
    const option = current();
    if (place.inInput || !option) return;
    if (element.confirm && !(await surface.confirm(element.confirm))) return;
    surface.act(blockId, element.actionId, option);
  });
  return select;
}

/**
 * The parts every type-ahead has, as a screen reader names them: the field (a combobox, labelled by its input block
 * or its placeholder), the list of options it controls, the line that says how many there are, and a way to close
 * the list.
 * @param {string} placeholder
 * @param {{ id?: string, label?: string }} place
 */
function typeAhead(placeholder, place) {
  const box = el('div', 'bk-combobox');
  const field = el('input', 'bk-field-input');
  field.type = 'text';
  field.id = place.id ?? uid('combobox');
  if (!place.id) field.setAttribute('aria-label', placeholder);
  field.placeholder = placeholder;
  field.setAttribute('role', 'combobox');
  field.setAttribute('aria-autocomplete', 'list');
  field.setAttribute('aria-expanded', 'false');
  const list = el('ul', 'bk-listbox');
  list.id = uid('listbox');
  list.setAttribute('role', 'listbox');
  if (place.label) list.setAttribute('aria-label', place.label);
  list.hidden = true;
  field.setAttribute('aria-controls', list.id);
  const status = el('p', 'bk-hint');
  status.setAttribute('aria-live', 'polite');
  const close = () => {
    list.hidden = true;
    field.setAttribute('aria-expanded', 'false');
  };
  return { box, field, list, status, close };
}

/**
 * Asks the app for the options of what was typed: none when too little was typed (the list is closed, and says how
 * much more to type), nor when a later keystroke has asked again meanwhile.
 * @param {{ minQueryLength: number, actionId: string }} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ close: () => void, status: HTMLElement }} shown
 * @returns {(typed: string) => Promise<UiOption[] | undefined>}
 */
function optionsFor(element, blockId, surface, shown) {
  let asked = 0;
  return async (typed) => {
    if (typed.length < element.minQueryLength) {
      shown.close();
      shown.status.textContent = `Type at least ${counted(element.minQueryLength, 'character')}.`;
      return undefined;
    }
    const ask = ++asked;
    const options = await surface.suggest(blockId, element.actionId, typed);
    return ask === asked ? options : undefined;
  };
}

/**
 * A type-ahead: each keystroke (past the minimum length), and focus when that minimum is 0, asks the app for options,
 * as Slack's block_suggestion does.
 * @param {Extract<UiElement, { t: 'external_select' }>} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ inInput: boolean, id?: string, label?: string }} place
 * @returns {HTMLElement}
 */
function externalSelect(element, blockId, surface, place) {
  const { box, field, list, status, close } = typeAhead(element.placeholder, place);
  box.append(field, list, status);

  const kept = surface.values.get(blockId, element.actionId);
  /** @type {UiOption | undefined} */
  let chosen =
    kept?.type === 'external_select' && kept.selected_option
      ? { text: kept.selected_option.text.text, value: kept.selected_option.value }
      : element.initial;
  const store = () =>
    surface.values.set(blockId, element.actionId, {
      type: 'external_select',
      selected_option: chosen ? selectedOption(chosen) : null,
    });
  store();
  field.value = chosen?.text ?? '';

  /** @param {UiOption} option */
  const choose = async (option) => {
    chosen = option;
    field.value = option.text;
    store();
    close();
    status.textContent = '';
    if (place.inInput) return;
    if (element.confirm && !(await surface.confirm(element.confirm))) return;
    surface.act(blockId, element.actionId, option);
  };
  const ask = optionsFor(element, blockId, surface, { close, status });
  /** @param {string} typed */
  const offer = async (typed) => {
    const options = await ask(typed);
    if (!options) return;
    list.replaceChildren();
    for (const option of options) {
      const item = el('li', 'bk-option', option.text);
      item.id = uid('option');
      item.setAttribute('role', 'option');
      item.setAttribute('aria-selected', 'false');
      if (option.description) item.append(el('span', 'bk-option-description', option.description));
      item.addEventListener('mousedown', (event) => event.preventDefault());
      item.addEventListener('click', () => void choose(option));
      list.append(item);
    }
    list.hidden = options.length === 0;
    field.setAttribute('aria-expanded', String(options.length > 0));
    status.textContent = options.length === 0 ? 'No matches.' : `${counted(options.length, 'option')}.`;
  };
  field.addEventListener('input', () => {
    chosen = undefined;
    store();
    void offer(field.value);
  });
  // Slack lists a type-ahead's options as soon as it is focused when it needs no characters first.
  field.addEventListener('focus', () => {
    if (element.minQueryLength === 0) void offer(chosen ? '' : field.value);
  });
  field.addEventListener('keydown', (event) => {
    const items = /** @type {HTMLElement[]} */ ([...list.querySelectorAll('[role=option]')]);
    if (list.hidden || items.length === 0) return;
    const active = items.findIndex((item) => item.getAttribute('aria-selected') === 'true');
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = (active + (event.key === 'ArrowDown' ? 1 : items.length - 1 + (active < 0 ? 1 : 0))) % items.length;
      for (const [index, item] of items.entries()) item.setAttribute('aria-selected', String(index === next));
      field.setAttribute('aria-activedescendant', items[next]?.id ?? '');
    } else if (event.key === 'Enter' && active >= 0) {
      event.preventDefault();
      items[active]?.click();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
    }
  });
  field.addEventListener('blur', close);
  return box;
}

/**
 * A type-ahead of several choices, as Slack draws one in a form; its options are the app's answer to what was typed.
 * @param {Extract<UiElement, { t: 'multi_external_select' }>} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ id?: string, label?: string }} place
 */
function multiExternalSelect(element, blockId, surface, place) {
  const kept = surface.values.get(blockId, element.actionId);
  const initial =
    kept?.type === 'multi_external_select'
      ? kept.selected_options.map((option) => ({ text: option.text.text, value: option.value }))
      : element.initial;
  /** @param {UiOption[]} chosen */
  const store = (chosen) =>
    surface.values.set(blockId, element.actionId, {
      type: 'multi_external_select',
      selected_options: chosen.map(selectedOption),
    });
  return multiSelect(element, place, initial, store, (shown) => optionsFor(element, blockId, surface, shown));
}

/**
 * A picker of the workspace's people or channels, as Slack draws one in a form: it offers them all when focused, and
 * those whose name holds what is typed; the submission carries their ids (`selected_users`, `selected_conversations`).
 * @param {Extract<UiElement, { t: 'multi_users_select' | 'multi_conversations_select' }>} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ id?: string, label?: string }} place
 */
function workspacePicker(element, blockId, surface, place) {
  const kept = surface.values.get(blockId, element.actionId);
  const keptIds =
    kept?.type === 'multi_users_select'
      ? kept.selected_users
      : kept?.type === 'multi_conversations_select'
        ? kept.selected_conversations
        : undefined;
  const known = [...element.options, ...element.initial];
  const named = (/** @type {string} */ id) => known.find((option) => option.value === id) ?? { text: id, value: id };
  /** @param {UiOption[]} chosen */
  const store = (chosen) => {
    const ids = chosen.map((option) => option.value);
    surface.values.set(
      blockId,
      element.actionId,
      element.t === 'multi_users_select'
        ? { type: element.t, selected_users: ids }
        : { type: element.t, selected_conversations: ids },
    );
  };
  /** @param {string} typed */
  const matching = async (typed) =>
    element.options.filter((option) => option.text.toLowerCase().includes(typed.trim().toLowerCase()));
  return multiSelect(
    { ...element, minQueryLength: 0 },
    place,
    keptIds ? keptIds.map(named) : element.initial,
    store,
    () => matching,
  );
}

/**
 * A picker of several choices: the choices so far, each with a way to remove it, then the field whose options (what
 * `asker` answers to what was typed) each add or remove one, the list staying open; never more than `maxSelected`.
 * @param {{ placeholder: string, minQueryLength: number, maxSelected?: number }} element
 * @param {{ id?: string, label?: string }} place
 * @param {UiOption[]} initial the choices it starts with
 * @param {(chosen: UiOption[]) => void} store keeps the choices in the surface's values, in Slack's shape
 * @param {(shown: { close: () => void, status: HTMLElement }) => (typed: string) => Promise<UiOption[] | undefined>} asker
 */
function multiSelect(element, place, initial, store, asker) {
  const label = place.label ?? element.placeholder;
  const { box, field, list, status, close } = typeAhead(element.placeholder, { ...place, label });
  list.setAttribute('aria-multiselectable', 'true');
  const chips = el('ul', 'bk-chips');
  chips.setAttribute('aria-label', `${label}: chosen`);
  box.append(chips, field, list, status);

  let chosen = [...initial];
  const isChosen = (/** @type {UiOption} */ option) => chosen.some((one) => one.value === option.value);
  const show = () => {
    store(chosen);
    chips.replaceChildren(
      ...chosen.map((option) => {
        const chip = el('li', 'bk-chip', option.text);
        const remove = el('button', 'bk-chip-remove', '×');
        remove.type = 'button';
        remove.setAttribute('aria-label', `Remove ${option.text}`);
        remove.addEventListener('click', () => toggle(option));
        chip.append(remove);
        return chip;
      }),
    );
    for (const item of list.querySelectorAll('[role=option]')) {
      const value = item.getAttribute('data-value');
      item.setAttribute('aria-selected', String(chosen.some((one) => one.value === value)));
    }
  };
  /** @param {UiOption} option */
  const toggle = (option) => {
    if (isChosen(option)) chosen = chosen.filter((one) => one.value !== option.value);
    else if (element.maxSelected !== undefined && chosen.length >= element.maxSelected) {
      close();
      status.textContent = `Choose at most ${counted(element.maxSelected, 'item')}: remove one first.`;
      return;
    } else chosen = [...chosen, option];
    show();
  };
  const ask = asker({ close, status });
  /** @param {string} typed */
  const offer = async (typed) => {
    const options = await ask(typed);
    if (!options) return;
    list.replaceChildren(
      ...options.map((option) => {
        const item = el('li', 'bk-option', option.text);
        item.id = uid('option');
        item.setAttribute('role', 'option');
        item.setAttribute('data-value', option.value);
        if (option.description) item.append(el('span', 'bk-option-description', option.description));
        item.addEventListener('mousedown', (event) => event.preventDefault());
        item.addEventListener('click', () => toggle(option));
        return item;
      }),
    );
    show();
    list.hidden = options.length === 0;
    field.setAttribute('aria-expanded', String(options.length > 0));
    status.textContent = options.length === 0 ? 'No matches.' : `${counted(options.length, 'option')}.`;
  };
  show();
  field.addEventListener('input', () => void offer(field.value));
  // Slack lists a type-ahead's options as soon as it is focused when it needs no characters first.
  field.addEventListener('focus', () => {
    if (element.minQueryLength === 0) void offer(field.value);
  });
  field.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.preventDefault();
    event.stopPropagation();
    close();
  });
  field.addEventListener('blur', close);
  return box;
}

/**
 * A checkbox group, named by its input block: each box with its text and description; the submission carries the
 * options ticked as the app gave them (`selected_options`).
 * @param {Extract<UiElement, { t: 'checkboxes' }>} element
 * @param {string} blockId
 * @param {Surface} surface
 * @param {{ id?: string, label?: string }} place
 */
function checkboxes(element, blockId, surface, place) {
  const group = el('div', 'bk-checkboxes');
  group.setAttribute('role', 'group');
  if (place.id) group.id = place.id;
  if (place.label) group.setAttribute('aria-label', place.label);
  const kept = surface.values.get(blockId, element.actionId);
  const ticked = new Set(
    kept?.type === 'checkboxes' ? kept.selected_options.map((option) => option.value) : element.initial,
  );
  const store = () =>
    surface.values.set(blockId, element.actionId, {
      type: 'checkboxes',
      selected_options: element.options.filter((box) => ticked.has(box.value)).map((box) => box.option),
    });
  for (const box of element.options) {
    const row = el('label', 'bk-checkbox');
    const input = el('input');
    input.type = 'checkbox';
    input.checked = ticked.has(box.value);
    input.addEventListener('change', () => {
      if (input.checked) ticked.add(box.value);
      else ticked.delete(box.value);
      store();
    });
    const text = el('span');
    text.append(renderInline(box.text));
    if (box.description) {
      const description = el('span', 'bk-option-description');
      description.append(renderInline(box.description));
      text.append(description);
    }
    row.append(input, text);
    group.append(row);
  }
  store();
  return group;
}
