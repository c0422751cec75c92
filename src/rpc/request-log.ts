// request_id bookkeeping (PROTOCOL.md §7): the last 64 act results of a session by id. The same
// id with the same params is answered from here and executes nothing; identical concurrent
// requests share one execution; other params under a used id are a conflict.

import { BoundedMap } from '../util/bounded-map.ts';

const KEPT = 64;

interface Entry<R> {
  /** Canonical JSON of the request's params. */
  fingerprint: string;
  result: Promise<R>;
}

export type Lookup<R> = { kind: 'new' } | { kind: 'replay'; result: Promise<R> } | { kind: 'conflict' };

export class RequestLog<R> {
  readonly #entries = new BoundedMap<string, Entry<R>>(KEPT);

  lookup(requestId: string, fingerprint: string): Lookup<R> {
    const entry = this.#entries.get(requestId);
    if (!entry) return { kind: 'new' };
    return entry.fingerprint === fingerprint ? { kind: 'replay', result: entry.result } : { kind: 'conflict' };
  }

  /** Records a running request; its result (whatever it is, cancelled included) is kept. */
  record(requestId: string, fingerprint: string, result: Promise<R>): void {
    this.#entries.renew(requestId, { fingerprint, result });
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** JSON with object keys sorted, so that key order never makes two equal requests differ. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value as Record<string, unknown>).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
