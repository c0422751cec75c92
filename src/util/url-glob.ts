// URL globs, as `wait_for: {url}` takes them (PROTOCOL.md §7). The syntax is deliberately small,
// because URLs are full of characters that are special in file globs:
//
//   *    any run of characters except "/" (at least one when it fills a whole "/" segment)
//   **   as a whole segment (`/**/`, `/**` at the end, `**/` at the start): any characters
//        including "/"; `a/**/b` also matches `a/b`; anywhere else it is the same as `*`
//   everything else is literal: `?` (so a query string is written as it is), `.`, `+`, `(`, `)`,
//        `[`, `]` (IPv6 hosts), `{`, `}`, `!`, `@`, `#`, `%`, `\` … Case matters.
//
// The whole URL must match, from the scheme to the end of the query/fragment; scheme and host are
// matched literally apart from globs. A pattern without `*` must equal the URL exactly.
// `*` never crosses "/", in the query too: `http://h/search?q=*` matches `?q=cats` but not
// `?q=a/b`. Examples:
//   http://127.0.0.1:*/page/**    any port; anything under /page/ (not /page itself)
//   **/login                      a path ending in /login, no query
//   **/login*                     …with any query (without "/")
//   https://*.example.com/**      any subdomain (not example.com itself)
//
// The matching itself is picomatch's (segments, globstars); we escape every other character so
// that brace, bracket, extglob, negation and `?` syntax never apply. One picomatch rule remains:
// a wildcard never matches a whole "." or ".." segment. Browsers normalise those out of paths, so
// this only shows in a query or fragment that contains "/../" (`**` does not match it there).
import picomatch from 'picomatch';

const OPTIONS: picomatch.PicomatchOptions = {
  // URL path segments starting with "." (/.well-known/) are ordinary, not hidden files.
  dot: true,
  // Belt and braces: the escaping below already makes these literal.
  nobrace: true,
  noextglob: true,
  nonegate: true,
  literalBrackets: true,
  // A trailing "/" is part of the URL like any character: `/a/*` does not match `/a/b/`, and
  // `/page/**` does not match `/page`.
  strictSlashes: true,
  // Never the platform default: a backslash is not a separator in a URL, on Windows either.
  windows: false,
};

/** Whether `pattern` uses any glob syntax (otherwise it is compared verbatim). */
export function isUrlGlob(pattern: string): boolean {
  return pattern.includes('*');
}

/** A backslash before every ASCII punctuation character except `*` and `/`. */
function escapeLiterals(pattern: string): string {
  return pattern.replace(/[!-).-.:-@[-`{-~,+-]/g, '\\$&');
}

/** Compiles a pattern once, for repeated tests (a wait loop). */
export function compileUrlGlob(pattern: string): (url: string) => boolean {
  if (!isUrlGlob(pattern)) return (url) => url === pattern;
  const matcher = picomatch(escapeLiterals(pattern), OPTIONS);
  return (url) => matcher(url);
}

/** Whether `url` matches the glob `pattern` (syntax above); a repeated test compiles it once instead. */
export function urlMatches(url: string, pattern: string): boolean {
  return compileUrlGlob(pattern)(url);
}
