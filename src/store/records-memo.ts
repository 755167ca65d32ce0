// Pages of agents' records (their numbers and languages), kept as read at the records' version. The version moves on
// with every change to routes and agent_facts, whoever makes it (the triggers of migrations 15 and 16), and each
// delivery reads it with its key (dedupe.ts). A delivery that arrived at a version the kept page was read at, or
// before, needs nothing newer: it is answered from here, which on Postgres saves a round trip to the server for every
// page of agents.

/** The records as a delivery found them: their version as its key was recorded, and this process's writes by then. */
export interface RecordsSeen {
  version: number;
  writes: number;
}

/** What the app's records say of one agent: the numbers routed to it, in number order, and its language if known. */
export interface AgentRecords {
  numbers: readonly string[];
  language?: string;
}

/** Pages kept at one version; a page-turn of 25 agents each is a few hundred bytes. */
const MAX_PAGES = 64;

const pageKey = (agentIds: readonly string[]): string => agentIds.join('\n');

export class RecordsMemo {
  // Counted so that a delivery that writes records and then reads them is not answered from a page read at the
  // version it arrived at: its own write is newer than that (and so is any other of this process's since).
  #writes = 0;
  #version = Number.NEGATIVE_INFINITY;
  readonly #pages = new Map<string, ReadonlyMap<string, AgentRecords>>();

  /** Called before each write of routes or agent_facts. */
  wrote(): void {
    this.#writes += 1;
  }

  /** The records as found now, at `version`, read with a delivery's key. */
  seen(version: number): RecordsSeen {
    return { version, writes: this.#writes };
  }

  /** The page as kept, if it is as new as the delivery that asks needs. */
  page(agentIds: readonly string[], seen: RecordsSeen): ReadonlyMap<string, AgentRecords> | undefined {
    if (seen.writes !== this.#writes || seen.version > this.#version) return undefined;
    return this.#pages.get(pageKey(agentIds));
  }

  /**
   * Keeps a page read after the delivery's key was recorded: its rows are at least as new as `seen.version`. A page
   * read by a delivery older than the kept ones, or while this process wrote, is not kept.
   */
  keep(agentIds: readonly string[], seen: RecordsSeen, page: ReadonlyMap<string, AgentRecords>): void {
    if (seen.writes !== this.#writes || seen.version < this.#version) return;
    if (seen.version > this.#version) {
      this.#pages.clear();
      this.#version = seen.version;
    }
    if (this.#pages.size >= MAX_PAGES) this.#pages.delete(this.#pages.keys().next().value as string);
    this.#pages.set(pageKey(agentIds), page);
  }
}
