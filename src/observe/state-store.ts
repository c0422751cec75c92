// Every observation a session issued, by state id: one current state per tab, older ones
// superseded, a consumed one never usable again. Ids carry the store's run id and a sequence
// number, so an id evicted from memory is still known to have been issued (stale, not unknown).
import { randomId } from '../util/ids.ts';
import type { ElementView, RefTarget } from './render.ts';

export interface ObservedFrame {
  frameId: string;
  loaderId: string;
  /** backendNodeId of the document node: ids restart in a new renderer, so it is checked too. */
  documentBackendNodeId: number | undefined;
  url: string;
  status: 'observed' | 'unavailable';
  reason?: string;
}

export type StateStatus = 'current' | 'superseded' | 'consumed';

export interface StateRecord {
  readonly stateId: string;
  readonly targetId: string;
  /** The frame the observation was rooted at. */
  readonly frameId: string;
  readonly frames: ReadonlyMap<string, ObservedFrame>;
  readonly targets: ReadonlyMap<string, RefTarget>;
  readonly elements: readonly ElementView[];
  /** Hash of the visible text, for `diff.text_changed`. */
  readonly textHash: number;
  /** Issued while a dialog was pending: act answers modal_blocked. */
  readonly dialogPending: boolean;
  status: StateStatus;
}

export type NewState = Omit<StateRecord, 'stateId' | 'status'>;

/** Kept per tab (for `since` diffs and act); older records are dropped, their ids still known. */
export const KEPT_PER_TAB = 8;
/** Current states of closed tabs kept so that acting on one says target_changed. */
export const KEPT_FOR_CLOSED_TABS = 64;
/**
 * Records one session keeps in all (its tabs and popups together, closed tabs included); past it
 * the oldest non-current records go first. An evicted id stays known: act says stale_state.
 */
export const DEFAULT_MAX_RECORDS = 256;

export class StateStore {
  readonly #runId = randomId('').slice(0, 8);
  readonly #maxRecords: number;
  #next = 1;
  readonly #records = new Map<string, StateRecord>();
  readonly #byTab = new Map<string, string[]>();
  readonly #closedTabStates: string[] = [];

  constructor(options: { maxRecords?: number } = {}) {
    this.#maxRecords = Math.max(1, options.maxRecords ?? DEFAULT_MAX_RECORDS);
  }

  get size(): number {
    return this.#records.size;
  }

  issue(state: NewState): StateRecord {
    const record: StateRecord = { ...state, stateId: `st_${this.#runId}_${(this.#next++).toString(36)}`, status: 'current' };
    const ids = this.#byTab.get(state.targetId) ?? [];
    for (const id of ids) {
      const previous = this.#records.get(id);
      if (previous && previous.status === 'current') previous.status = 'superseded';
    }
    ids.push(record.stateId);
    while (ids.length > KEPT_PER_TAB) this.#records.delete(ids.shift()!);
    this.#byTab.set(state.targetId, ids);
    this.#records.set(record.stateId, record);
    if (this.#records.size > this.#maxRecords) this.#evictOldest(record.stateId);
    return record;
  }

  /** Over the session's cap: the oldest records go (Map order is issue order), non-current ones first. */
  #evictOldest(keep: string): void {
    const victims: string[] = [];
    let excess = this.#records.size - this.#maxRecords;
    for (const [id, record] of this.#records) {
      if (excess === 0) break;
      if (record.status !== 'current') {
        victims.push(id);
        excess--;
      }
    }
    // Only current states left (more live tabs than the cap): the oldest of those go too.
    for (const id of this.#records.keys()) {
      if (excess === 0) break;
      if (id !== keep && !victims.includes(id)) {
        victims.push(id);
        excess--;
      }
    }
    for (const id of victims) this.#forget(id);
  }

  #forget(stateId: string): void {
    const record = this.#records.get(stateId);
    if (!record) return;
    this.#records.delete(stateId);
    const ids = this.#byTab.get(record.targetId);
    const at = ids?.indexOf(stateId) ?? -1;
    if (ids && at !== -1) ids.splice(at, 1);
    const closedAt = this.#closedTabStates.indexOf(stateId);
    if (closedAt !== -1) this.#closedTabStates.splice(closedAt, 1);
  }

  get(stateId: string): StateRecord | undefined {
    return this.#records.get(stateId);
  }

  current(targetId: string): StateRecord | undefined {
    const ids = this.#byTab.get(targetId);
    const last = ids && this.#records.get(ids[ids.length - 1]!);
    return last?.status === 'current' ? last : undefined;
  }

  /** True when this store issued the id, even if its record has since been dropped. */
  wasIssued(stateId: string): boolean {
    const match = /^st_([0-9a-f]{8})_([0-9a-z]+)$/.exec(stateId);
    if (!match || match[1] !== this.#runId) return false;
    const seq = parseInt(match[2]!, 36);
    return seq >= 1 && seq < this.#next;
  }

  /** Marks the state consumed; returns what it was before (undefined: not held any more). */
  consume(stateId: string): StateStatus | undefined {
    const record = this.#records.get(stateId);
    if (!record) return undefined;
    const before = record.status;
    record.status = 'consumed';
    return before;
  }

  /** Every current state of the tab becomes superseded (its document changed under it). */
  supersede(targetId: string): void {
    const current = this.current(targetId);
    if (current) current.status = 'superseded';
  }

  /**
   * The tab is gone: its records go, except the current one, kept (among the last few closed tabs)
   * so that acting on it says target_changed rather than stale_state.
   */
  dropTab(targetId: string): void {
    const ids = this.#byTab.get(targetId) ?? [];
    this.#byTab.delete(targetId);
    for (const id of ids) {
      if (this.#records.get(id)?.status === 'current') this.#closedTabStates.push(id);
      else this.#records.delete(id);
    }
    while (this.#closedTabStates.length > KEPT_FOR_CLOSED_TABS) this.#records.delete(this.#closedTabStates.shift()!);
  }
}

/** FNV-1a, 32 bits: enough to tell whether a text changed between two observations. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
