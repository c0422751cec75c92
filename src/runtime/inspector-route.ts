// /inspector on the server's own listener (PROTOCOL.md §13): the page, and the two scripts it
// loads (the SDK's browser build and the inspector app, both built into dist/browser by
// `npm run build`). Each request has passed the listener's Host, Origin and token checks; the
// page passes its token on to its scripts and its socket. Nothing is loaded from elsewhere.
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../rpc/context.ts';

/** Where dist/browser is: beside dist/src when running built, under the repository from source. */
const CANDIDATE_DIRS = ['../../browser/', '../../dist/browser/'];

const SCRIPTS: Record<string, string> = {
  '/inspector/pagewire-client.js': 'pagewire-client.js',
  '/inspector/inspector.js': 'inspector.js',
};

export const INSPECTOR_PATHS = ['/inspector', ...Object.keys(SCRIPTS)];

async function readBuilt(file: string): Promise<string | undefined> {
  for (const dir of CANDIDATE_DIRS) {
    try {
      return await readFile(new URL(dir + file, import.meta.url), 'utf8');
    } catch {
      // Not in this layout: try the next.
    }
  }
  return undefined;
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'Content-Type': `${type}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    // The token is in the page's URL: it must not travel on in a Referer.
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

function page(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>pagewire inspector</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
</head>
<body>
<noscript>The inspector needs JavaScript.</noscript>
<script type="module" nonce="${nonce}">
  const search = new URLSearchParams(location.search);
  const token = search.get('token') ?? '';
  const q = '?token=' + encodeURIComponent(token);
  const [sdk, app] = await Promise.all([import('/inspector/pagewire-client.js' + q), import('/inspector/inspector.js' + q)]);
  app.start({
    sdk,
    url: 'ws://' + location.host + '/',
    token,
    session: search.get('session') ?? undefined,
    trace: search.get('trace') ?? undefined,
    root: document.body,
  });
</script>
</body>
</html>
`;
}

export function inspectorRoute(req: IncomingMessage, res: ServerResponse, _principal: Principal): void {
  req.resume();
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'GET only\n', { Allow: 'GET, HEAD' });
  const path = (req.url ?? '/').split('?')[0]!;
  const script = SCRIPTS[path];
  if (script === undefined) {
    const nonce = randomBytes(16).toString('base64');
    const csp = [
      "default-src 'none'",
      `script-src 'self' 'nonce-${nonce}'`,
      "connect-src 'self'",
      "img-src 'self' data:",
      "style-src 'self' 'unsafe-inline'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; ');
    return send(res, 200, 'text/html', page(nonce), { 'Content-Security-Policy': csp });
  }
  void readBuilt(script).then((text) =>
    text === undefined
      ? send(res, 503, 'text/plain', `${script} is not built: run npm run build\n`)
      : send(res, 200, 'text/javascript', text)
  );
}
