// Best-effort removal of secrets from what a model or a log will read (PROTOCOL.md §11).

export const REDACTED = '[redacted]';

/** A URL without userinfo, query string or fragment. Non-URL strings come back unchanged. */
export function redactUrl(url: string): string {
  if (!url) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/[?#].*$/s, '');
  }
  if (parsed.protocol === 'data:') {
    // A data: URL *is* its content; keep only its type.
    return `data:${parsed.pathname.split(',')[0] ?? ''},…`;
  }
  if (parsed.protocol === 'about:' || parsed.protocol === 'blob:' || parsed.protocol === 'javascript:') {
    return `${parsed.protocol}${parsed.pathname.replace(/[?#].*$/s, '')}`;
  }
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  return parsed.href;
}

// JWTs (three base64url parts, the first a JSON header), bearer tokens, and the shapes of common
// API keys. Kept conservative: a false positive hides a word, a false negative leaks a secret.
const SECRET_PATTERNS: RegExp[] = [
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, // JWT
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, // Authorization header values
  /\b(sk|pk|rk)[-_](live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}/g, // Stripe/OpenAI/Anthropic-style keys
  /\bgh[pousr]_[A-Za-z0-9]{30,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{30,}/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, // Slack tokens
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key ids
  /\bAIza[0-9A-Za-z_-]{35}\b/g, // Google API keys
  /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab tokens
  /\b(api[_-]?key|access[_-]?token|secret|password|passwd|token)(\s*[:=]\s*)["']?[^\s"'&,;]{8,}/gi, // key=value
];

/**
 * Any of the patterns, as one case-insensitive scan: most text holds none, and one pass over it
 * is a tenth of the work of trying each pattern in turn. Looser than the patterns (it ignores
 * their case), so it only decides whether they need to run.
 */
const MAYBE_SECRET = new RegExp(SECRET_PATTERNS.map((pattern) => `(?:${pattern.source})`).join('|'), 'i');

/**
 * A secret the redaction knows: a string is hidden with every beginning of it of 4 characters
 * and more (text typed into a field, which a page may echo as it is typed); `{exact}` only where
 * it appears whole (a configured secret's value, or a form of it: fewer false hits in page text).
 */
export type KnownSecret = string | { readonly exact: string };

/** Whether redactSecrets would hide something of `secret` in `text` (screenshots mask such text). */
export function containsSecret(text: string, secret: KnownSecret): boolean {
  if (!text) return false;
  if (typeof secret !== 'string') return secret.exact !== '' && text.includes(secret.exact);
  return secret !== '' && text.includes(secret.slice(0, Math.min(4, secret.length)));
}

/**
 * Hides known secrets and any beginning of one at least 4 characters long: a page that echoes a
 * password field as it is typed shows every prefix of the password, not only the whole. At each
 * place the longest match of all the secrets is hidden: one secret's forms share their beginning
 * (`correct horse` and `correct%20horse`), and hiding the first form's shorter match there would
 * leave the rest of the other in the text.
 */
function hideSecrets(text: string, secrets: readonly string[]): string {
  const heads = secrets.filter((secret) => secret !== '').map((secret) => ({ secret, head: secret.slice(0, Math.min(4, secret.length)) }));
  if (!heads.some(({ head }) => text.includes(head))) return text;
  let out = '';
  let from = 0;
  for (let at = 0; at < text.length;) {
    let longest = 0;
    for (const { secret, head } of heads) {
      if (!text.startsWith(head, at)) continue;
      let length = head.length;
      while (length < secret.length && text[at + length] === secret[length]) length++;
      longest = Math.max(longest, length);
    }
    if (longest === 0) {
      at++;
      continue;
    }
    out += text.slice(from, at) + REDACTED;
    at += longest;
    from = at;
  }
  return out + text.slice(from);
}

/** Every occurrence of any of `forms` (longest first, so a longer form is not cut by a shorter one). */
export function hideExact(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (form && out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
}

/** Hides `known` secrets only (no secret shapes): for text that is not page text, like URLs and paths. */
export function redactKnown(text: string, known: Iterable<KnownSecret>): string {
  const all = [...known];
  let out = hideSecrets(text, all.filter((secret): secret is string => typeof secret === 'string'));
  for (const secret of all) {
    if (typeof secret !== 'string' && secret.exact && out.includes(secret.exact)) out = out.split(secret.exact).join(REDACTED);
  }
  return out;
}

/** Replaces secret-looking substrings, and any of `known` (e.g. typed passwords), by [redacted]. */
export function redactSecrets(text: string, known: Iterable<KnownSecret> = []): string {
  if (!text) return text;
  let out = redactKnown(text, known);
  if (!MAYBE_SECRET.test(out)) return out;
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (_match, ...groups: unknown[]) => {
      // key=value: keep the key so the text still reads, hide the value.
      const key = groups[0];
      const sep = groups[1];
      if (typeof key === 'string' && typeof sep === 'string' && /^(api|access|secret|password|passwd|token)/i.test(key)) {
        return `${key}${sep}${REDACTED}`;
      }
      return REDACTED;
    });
  }
  return out;
}

/**
 * `value` with `scrub` applied to every string in it (object keys stay). Images are left alone:
 * the `data` of an object whose `mime` is an image type is base64, masked by pixels instead, and a
 * short secret could match base64 text by chance. Returns the same object when nothing changed.
 */
export function scrubStrings<T>(value: T, scrub: (text: string) => string, depth = 0): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = scrubStrings(item, scrub, depth + 1);
      if (next !== item) changed = true;
      return next;
    });
    return (changed ? out : value) as T;
  }
  const record = value as Record<string, unknown>;
  const image = typeof record['mime'] === 'string' && (record['mime'] as string).startsWith('image/');
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(record)) {
    if (image && key === 'data') continue;
    const next = scrubStrings(item, scrub, depth + 1);
    if (next !== item) (out ??= { ...record })[key] = next;
  }
  return (out ?? value) as T;
}
