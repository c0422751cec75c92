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
export function randomId(prefix: string, bytes = 9): string {
  const random = new Uint8Array(bytes);
  crypto.getRandomValues(random);
  let text = '';
  for (const b of random) text += b.toString(16).padStart(2, '0');
  return `${prefix}${text}`;
}

/**
 * An instance id (PROTOCOL.md §13, "Fleet"): lower-case letters, digits and `-`, the shape of a
 * Kubernetes pod name, and never `_`, which separates it from the rest of the ids it begins.
 */
export const INSTANCE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** The id of an instance started without --instance-id: short, so that ids stay readable. */
export function randomInstanceId(): string {
  return randomId('', 4);
}

/**
 * The instance an id was handed out by (`s_<instance>_…`, `m_<instance>_…`), or undefined for an
 * id of another shape (one made before fleets, or made up).
 */
export function instanceOf(id: string): string | undefined {
  const parts = id.split('_');
  const instance = parts[1];
  return parts.length >= 3 && instance !== undefined && INSTANCE_ID.test(instance) ? instance : undefined;
}
