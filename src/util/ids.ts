// Per-instance counters (never module globals, so two servers or tests never share them).
export class IdSequence {
  #next = 1;
  readonly #prefix: string;

  constructor(prefix = '') {
    this.#prefix = prefix;
  }

  next(): string {
    return `${this.#prefix}${this.#next++}`;
  }

  nextNumber(): number {
    return this.#next++;
  }
}

/** An unguessable id for things a client names (sessions, states): never sequential. */
export function randomId(prefix: string): string {
  const bytes = new Uint8Array(9);
  crypto.getRandomValues(bytes);
  let text = '';
  for (const b of bytes) text += b.toString(16).padStart(2, '0');
  return `${prefix}${text}`;
}
