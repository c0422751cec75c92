// Configured secrets (PROTOCOL.md §13): values an agent types by name, never by value. The store
// answers which name may be typed into which origin, and hands the redaction the forms in which a
// value could show up in what we emit.

export interface SecretSpec {
  readonly name: string;
  readonly value: string;
  /** Serialised origins (`https://example.com`) the value may be typed into; empty: any origin. */
  readonly origins: readonly string[];
}

export const SECRET_NAME_RULE = 'a secret name is 1–64 letters, digits and _, not starting with a digit';

export function isSecretName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name);
}

/**
 * `NAME=value` lines; blank lines and lines starting with `#` are skipped. The value is everything
 * after the first `=`, as written (spaces included). Errors name the line, never its value.
 */
export function parseSecretsFile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((line, index) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const eq = line.indexOf('=');
    const name = (eq === -1 ? line : line.slice(0, eq)).trim();
    if (eq === -1) throw new Error(`line ${index + 1}: expected NAME=value`);
    if (!isSecretName(name)) throw new Error(`line ${index + 1}: ${SECRET_NAME_RULE}`);
    if (out.has(name)) throw new Error(`line ${index + 1}: ${name} is defined twice`);
    const value = line.slice(eq + 1);
    if (value === '') throw new Error(`line ${index + 1}: ${name} has an empty value`);
    out.set(name, value);
  });
  return out;
}

/**
 * The ways a value can appear in text we emit: as it is, percent-encoded (a URL path or a form
 * body), and escaped inside a JSON string (a CDP message, a log line). Longest first.
 */
export function secretForms(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), encodeURI(value), JSON.stringify(value).slice(1, -1)]);
  try {
    forms.add(encodeURIComponent(value).replace(/%20/g, '+'));
  } catch {
    // a lone surrogate cannot be encoded; the raw form is still there
  }
  return [...forms].filter((form) => form.length > 0).sort((a, b) => b.length - a.length);
}

export type SecretCheck = { ok: true; value: string } | { ok: false; reason: 'unknown' } | {
  ok: false;
  reason: 'origin';
  origins: readonly string[];
};

/** The server's secrets by name. */
export class SecretStore {
  readonly #byName = new Map<string, SecretSpec>();
  /** Every form of every value, longest first: what output redaction hides. */
  readonly forms: readonly string[];

  constructor(secrets: readonly SecretSpec[]) {
    for (const secret of secrets) this.#byName.set(secret.name, secret);
    this.forms = [...new Set(secrets.flatMap((secret) => secretForms(secret.value)))].sort((a, b) => b.length - a.length);
  }

  get size(): number {
    return this.#byName.size;
  }

  has(name: string): boolean {
    return this.#byName.has(name);
  }

  names(): string[] {
    return [...this.#byName.keys()];
  }

  /** Names and origins, never values (server.info). */
  describe(): Array<{ name: string; origins: string[] }> {
    return [...this.#byName.values()].map((secret) => ({ name: secret.name, origins: [...secret.origins] }));
  }

  /** The value of `name` if it may be typed into a document of `origin` (a serialised origin, `null` for opaque ones). */
  forOrigin(name: string, origin: string): SecretCheck {
    const secret = this.#byName.get(name);
    if (!secret) return { ok: false, reason: 'unknown' };
    if (secret.origins.length > 0 && !secret.origins.includes(origin)) return { ok: false, reason: 'origin', origins: secret.origins };
    return { ok: true, value: secret.value };
  }
}
