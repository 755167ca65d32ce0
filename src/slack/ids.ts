// Identifiers shared by the views that render interactive elements and the listeners that receive them.

export const ACTION = {
  buyNumber: 'buy_number',
  releaseNumber: 'release_number',
  deleteAgent: 'delete_agent',
  mapNumber: 'map_number',
  /** On a map's result: the map form again, for another number, with the same agent picked. */
  mapToAgent: 'map_to_agent',
  /** Once an agent is created: a form that picks several numbers at once for it, then one plan. */
  routeNumbersToAgent: 'route_numbers_to_agent',
  createAgent: 'create_agent',
  /** Under a buy's result: the agents, to route what was bought to one; or a new agent for it. */
  routeBought: 'route_bought',
  createAgentForBought: 'create_agent_for_bought',
  searchNumbers: 'search_numbers',
  searchRegion: 'search_region',
  homeNumbersFilter: 'home_numbers_filter',
  confirmChange: 'confirm_change',
  /** Confirm on a change that asks for a typed confirmation: opens the modal that asks for it. */
  confirmTyped: 'confirm_typed',
  cancelChange: 'cancel_change',
  approveChange: 'approve_change',
  rejectChange: 'reject_change',
  /** A bulk plan: applied, cancelled, stopped while it runs, and planned again (the failed items, or a Resume). */
  confirmBatch: 'confirm_batch',
  /** Apply on a plan that asks for a typed confirmation (a release): opens the modal that asks for it. */
  confirmBatchTyped: 'confirm_batch_typed',
  cancelBatch: 'cancel_batch',
  /** A step's agent creation asked of the person it names (Slack did not vouch they ran it): made, or not. */
  createAgentForStep: 'create_agent_for_step',
  cancelAgentForStep: 'cancel_agent_for_step',
  stopBatch: 'stop_batch',
  planAgain: 'plan_again',
  undoChange: 'undo_change',
  undoIncludingChanged: 'undo_including_changed',
  /** One of several agents of the name typed: the request goes on with its id. */
  chooseAgent: 'choose_agent',
  showHistory: 'show_history',
  /** On a card: the form of its labels and owner. */
  editLabels: 'edit_labels',
  historyOlder: 'history_older',
  /** On `/voice audit`: a batch's items, each with what became of it. */
  batchItems: 'batch_items',
  /** The Home tab's bulk tools: the numbers its filter shows mapped to one agent, a routing text, and the export. */
  mapFiltered: 'map_filtered',
  planRouting: 'plan_routing',
  exportRouting: 'export_routing',
  /** On `/voice subscriptions`: a channel's subscription, removed after confirmation. */
  unsubscribe: 'unsubscribe',
} as const;

/** Previous and Next of each paged list: two action ids, since Slack wants them unique within their block. */
const pageActions = <T extends string>(list: T) =>
  ({ previous: `${list}_page_previous`, next: `${list}_page_next` }) as const;

export const PAGE = {
  numbers: pageActions('numbers'),
  agents: pageActions('agents'),
  audit: pageActions('audit'),
  search: pageActions('search'),
  homeAgents: pageActions('home_agents'),
  homeNumbers: pageActions('home_numbers'),
  batch: pageActions('batch'),
} as const;

/** The Events API events the app listens to; any other event is acknowledged and ignored (see unlistened-events.ts). */
export const EVENT = {
  appHomeOpened: 'app_home_opened',
  /** A Workflow Builder step of the app's runs (see listeners/steps.ts). */
  functionExecuted: 'function_executed',
} as const;

export const CALLBACK = {
  createAgent: 'create_agent_modal',
  mapNumber: 'map_number_modal',
  searchNumbers: 'search_numbers_modal',
  confirmChange: 'confirm_change_modal',
  confirmBatch: 'confirm_batch_modal',
  routingPlan: 'routing_plan_modal',
  bulkMap: 'bulk_map_modal',
  routeNumbers: 'route_numbers_modal',
  /** A group of settings' form (roles, policies or channels): its inputs say which settings it changes. */
  settings: 'settings_modal',
  /** A kind of change's own form (its command typed alone): its fields are `INPUT.kindField(i)`. */
  kindForm: 'kind_form_modal',
  /** A number's or an agent's labels and owner. */
  labels: 'labels_modal',
  /** The Home tab's export: today's routing, or as of a time typed. */
  exportRouting: 'export_routing_modal',
  /** Read-only modals: results, progress, failures. */
  info: 'info_modal',
} as const;

/** A button per group, and a block per setting (two for a list of people and groups, or a count and its window). */
export const SETTINGS = {
  open: { roles: 'settings_roles', policies: 'settings_policies', channels: 'settings_channels' },
  value: 'value',
  /** The user-group pickers' type-ahead, which the options listener answers. */
  groupPick: 'settings_group_pick',
  block: (name: string, part?: 'people' | 'groups' | 'count' | 'window') => `setting_${name}${part ? `_${part}` : ''}`,
  /** A channel binding's row in the form: the last row is empty, to add one. */
  binding: (index: number, part: 'channel' | 'owner' | 'labels') => `setting_channelBindings_${index}_${part}`,
} as const;

/** block_id and action_id of each modal input, read back from `view.state.values`. */
export const INPUT = {
  agentName: { block: 'agent_name', action: 'value' },
  agentLanguage: { block: 'agent_language', action: 'value' },
  agentLanguageOther: { block: 'agent_language_other', action: 'value' },
  // Type-ahead pickers: their action ids are what the options listener answers, so each is its own.
  mapNumber: { block: 'map_number', action: 'map_number_pick' },
  mapAgent: { block: 'map_agent', action: 'map_agent_pick' },
  routeNumbers: { block: 'route_numbers', action: 'route_numbers_pick' },
  typedConfirmation: { block: 'typed_confirmation', action: 'value' },
  routingText: { block: 'routing_text', action: 'value' },
  routingFile: { block: 'routing_file', action: 'file' },
  exportAsOf: { block: 'export_as_of', action: 'value' },
  kindField: (index: number) => ({ block: `kind_field_${index}`, action: 'value' }),
  labels: { block: 'labels', action: 'value' },
  owner: { block: 'labels_owner', action: 'labels_owner_pick' },
} as const;
