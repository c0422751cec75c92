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
 * Hides a known secret and any beginning of it at least 4 characters long: a page that echoes a
 * password field as it is typed shows every prefix of the password, not only the whole.
 */
function hideSecret(text: string, secret: string): string {
  if (!secret) return text;
  const minimum = Math.min(4, secret.length);
  const head = secret.slice(0, minimum);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, from)) {
    let length = minimum;
    while (length < secret.length && text[at + length] === secret[length]) length++;
    out += text.slice(from, at) + REDACTED;
    from = at + length;
  }
  return out + text.slice(from);
}

/** Replaces secret-looking substrings, and any of `known` (e.g. typed passwords), by [redacted]. */
export function redactSecrets(text: string, known: Iterable<string> = []): string {
  if (!text) return text;
  let out = text;
  for (const secret of known) out = hideSecret(out, secret);
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
