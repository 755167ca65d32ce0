// A number's or an agent's history, newest first, each change with who, when, how and its audit id, told from the
// verified audit log (verified-log.ts).

import { phoneNumber, resourceId } from '../provider/schemas.js';
import type { AuditEvent } from '../store/audit.js';
import { matchAgent, noAgent } from './agent-names.js';
import { agentNames } from './audit.js';
import type { OpsDeps } from './deps.js';
import { changeKind, isKind } from './kinds/index.js';
import type { Phrase } from './phrase.js';
import { type Failure, fail, type Result } from './types.js';
import { validate } from './validate.js';
import { fromVerifiedLog } from './verified-log.js';

/** Lines of a history a page. */
const HISTORY_PAGE = 20;

export type HistoryHow =
  | 'command'
  | 'button'
  | 'form'
  | 'Home tab'
  | 'workflow step'
  | 'batch'
  | 'routing plan'
  | 'Undo'
  | 'checked with the provider'
  | 'outside Voice Ops';

export interface HistoryEntry {
  auditId: number;
  at: string;
  actorId: string;
  what: Phrase;
  how: HistoryHow;
}

export interface HistoryPage {
  subject: string;
  of: 'number' | 'agent';
  /** An agent's name: as the provider lists it now, else as its changes recorded it. */
  name?: string;
  entries: HistoryEntry[];
  /** The audit id to read older entries before, when there are any. */
  older?: number;
}

/** `/voice history +NUMBER` or `AGENT_ID`: a page of what happened to it, newest first. */
export async function history(deps: OpsDeps, subject: string, before?: number): Promise<Result<HistoryPage>> {
  const of = subject.startsWith('+') ? 'number' : 'agent';
  const checked = validate(of === 'number' ? phoneNumber : resourceId, subject);
  if (!checked.ok) return { ...checked, message: `${of === 'number' ? 'Number' : 'Agent id'} ${checked.message}` };
  const key = of === 'number' ? { number: checked.value } : { agentId: checked.value };
  // Read up to the end of the chain as verified: a row appended since waits for the next read.
  const read = await fromVerifiedLog(deps, async (end) => ({
    rows: await deps.store.audit.history(key, Math.min(before ?? end + 1, end + 1), HISTORY_PAGE + 1),
  }));
  if (!read.ok) return read;
  const { rows } = read;
  const page = rows.slice(0, HISTORY_PAGE);
  if (!page.length && before === undefined) return nothingHappened(deps, of, checked.value);
  const [names, ways] = await Promise.all([agentNames(deps), waysOf(deps, page)]);
  const entries = page.map((row) => ({
    auditId: row.id,
    at: row.at,
    actorId: row.actorId,
    // On an agent's page, each line names the number its change was about.
    what: of === 'agent' && row.target !== checked.value ? aboutNumber(row, names) : whatHappened(row, names),
    how: ways.get(row.correlationId) ?? howOf(row),
  }));
  return {
    ok: true,
    subject: checked.value,
    of,
    name: of === 'agent' ? (names.get(checked.value) ?? keptName(page, checked.value)) : undefined,
    entries,
    older: rows.length > HISTORY_PAGE ? page.at(-1)?.id : undefined,
  };
}

/** Why a history is empty: nothing happened, or no agent has that name or id (a deleted one's is found by its id). */
async function nothingHappened(deps: OpsDeps, of: 'number' | 'agent', subject: string): Promise<Failure> {
  // Digits alone are read as an agent's id: a number is typed with + and its country code.
  const number = /^\d{6,}$/.test(subject) ? ` If it is a number, type it as +${subject}.` : '';
  // Unread agents name none: the sentence then says only what the log holds.
  const agents = of === 'agent' ? await deps.lists.agents.get().catch(() => undefined) : undefined;
  const match = agents && matchAgent(agents, subject);
  if (match?.found === 'none') return withHint(noAgent(subject, match.closest), number);
  const named = match?.found === 'one' ? `${match.agent.name} (${match.agent.id})` : subject;
  return fail('not_found', `Nothing has happened to ${named} in the audit log.${number}`);
}

const withHint = (failure: Failure, hint: string): Failure => ({ ...failure, message: `${failure.message}${hint}` });

/** The name an agent's own changes recorded for it (its creation, its deletion, a route to it). */
function keptName(rows: AuditEvent[], agentId: string): string | undefined {
  for (const { target, params = {} } of rows) {
    if (target === agentId && typeof params.name === 'string') return params.name;
    if (params.agentId === agentId && typeof params.agentName === 'string') return params.agentName;
  }
  return undefined;
}

function whatHappened(row: AuditEvent, names: Map<string, string>): Phrase {
  const made = { target: row.target ?? '', params: row.params ?? {} };
  if (isKind(row.action)) return changeKind(row.action).happened(made, names);
  // The reconciler drops a route whose number or agent the provider no longer has.
  const because = typeof made.params.because === 'string' ? `: ${made.params.because}` : '';
  return [`route dropped${because}`];
}

/** A change to a number, as a line of an agent's history says it: the number, then what happened to it. */
const aboutNumber = (row: AuditEvent, names: Map<string, string>): Phrase => [
  { number: row.target ?? '' },
  ': ',
  ...whatHappened(row, names),
];

/** How a single change was asked for, from its row's source. */
function howOf(row: AuditEvent): HistoryHow {
  if (row.source === 'provider') return 'outside Voice Ops';
  // The app settles on its own what a stopped process left under way, checking with the provider.
  if (row.params?.reconciled === true || row.source === 'system') return 'checked with the provider';
  // A single change an Undo asked for (an agent's deletion) names the change it undoes on its row.
  if (typeof row.params?.undoes === 'string') return 'Undo';
  const how = {
    command: 'command',
    button: 'button',
    modal: 'form',
    home: 'Home tab',
    workflow: 'workflow step',
  } as const;
  return how[row.source];
}

/** The changes made as items of a batch, in one read of the page's batches: a routing plan's, an Undo's, a command's. */
async function waysOf(deps: OpsDeps, rows: AuditEvent[]): Promise<Map<string, HistoryHow>> {
  const batches = await deps.store.batches.getMany([...new Set(rows.map((row) => row.correlationId))]);
  return new Map(
    batches.map(({ id, plan: { request } }) => [
      id,
      request.undoes ? 'Undo' : request.routes ? 'routing plan' : 'batch',
    ]),
  );
}
