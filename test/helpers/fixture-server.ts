// Serves fixtures/pages on 127.0.0.1 (reachable as `localhost` too, a second site) for tests and
// benchmarks, plus a few dynamic routes. Loopback only, port chosen by the OS.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { onTeardown } from './teardown.ts';
import { longIndexHtml } from '../../fixtures/long-index.ts';
import { taskGuideHtml } from '../../fixtures/task-guide.ts';

export const PAGES_DIR = fileURLToPath(new URL('../../fixtures/pages/', import.meta.url));
/** Debian's python3-doc (`apt-get install python3-doc`): served under /python-docs/. */
export const PYTHON_DOCS_DIR = '/usr/share/doc/python3-doc/html';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.txt': 'text/plain',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export interface FixtureServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The same server as another site: `http://localhost:PORT` */
  readonly otherOrigin: string;
  readonly port: number;
  url(path: string): string;
  otherUrl(path: string): string;
  /** Every request and WebSocket upgrade that reached the server, oldest first (for "it never left the browser"). */
  readonly seen: ReadonlyArray<SeenRequest>;
  close(): Promise<void>;
}

export interface SeenRequest {
  method: string;
  /** Path and query as requested. */
  path: string;
  /** The Host header (`127.0.0.1:PORT` or `localhost:PORT`). */
  host: string;
  websocket: boolean;
}

// A 1×1 transparent PNG.
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/** Routes by path prefix, tried after the exact ones. Cross-site fixtures reach them from the other site name. */
const prefixRoutes: Array<[string, Route]> = [
  // Analytics-style endpoints: anything under them answers (CORS open).
  ['/api/echo/', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end('{"ok":true}');
  }],
  ['/api/ping/', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
    res.end('{"pong":true}');
  }],
  ['/api/pixel/', (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
    res.end(PIXEL);
  }],
  // /delayed/PATH?ms=N: the fixture file PATH, held N ms first (a module loader on a slow network).
  ['/delayed/', async (_req, res, url) => {
    const ms = Math.min(Number(url.searchParams.get('ms') ?? 500), 30_000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (!res.destroyed) await serveFile(url.pathname.slice('/delayed'.length), res);
  }],
  // /python-docs/PATH: Python's documentation as Debian's python3-doc installs it (real Sphinx
  // pages and their JavaScript search), when that package is there.
  ['/python-docs/', (_req, res, url) => serveFile(url.pathname.slice('/python-docs'.length), res, PYTHON_DOCS_DIR)],
  // A form post's target.
  ['/api/submit/', (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<title>Submitted</title><p>${req.method} received</p>`);
  }],
];

type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

const routes: Record<string, Route> = {
  // Sets a cookie from ?v= and shows it.
  '/cookie/set': (_req, res, url) => {
    const value = url.searchParams.get('v') ?? 'none';
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `pw=${encodeURIComponent(value)}; Path=/` });
    res.end(`<title>set ${value}</title><p>cookie set</p>`);
  },
  // Shows the cookie the browser sent, in the title.
  '/cookie/show': (req, res) => {
    const match = /(?:^|;\s*)pw=([^;]*)/.exec(req.headers.cookie ?? '');
    const value = match ? decodeURIComponent(match[1]!) : 'none';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<title>cookie ${value}</title><p id="cookie">${value}</p>`);
  },
  // Delays the response by ?ms= (for slow-load cases).
  '/slow': async (_req, res, url) => {
    const ms = Math.min(Number(url.searchParams.get('ms') ?? 500), 30_000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<title>slow ${ms}</title><p>slow page</p>`);
  },
  // A page whose parser waits on a script delayed by ?ms=: committed, but no DOMContentLoaded yet.
  '/slow-script': (_req, res, url) => {
    const ms = Math.min(Number(url.searchParams.get('ms') ?? 500), 30_000);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<title>Slow script</title><p>waiting for a script</p><script src="/slow.js?ms=${ms}"></script><p>after the script</p>`);
  },
  '/slow.js': async (_req, res, url) => {
    const ms = Math.min(Number(url.searchParams.get('ms') ?? 500), 30_000);
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end('document.title = "Slow script loaded";');
  },
  // An attachment: navigating to it becomes a download.
  '/download/report.txt': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="report.txt"' });
    res.end('report body\n');
  },
  // A download whose connection breaks halfway: the browser gives up on it.
  '/download/broken.bin': (_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': '1000000',
      'content-disposition': 'attachment; filename="broken.bin"',
    });
    res.write(Buffer.alloc(1000));
    setTimeout(() => res.destroy(), 50);
  },
  '/status/404': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<title>Not here</title><h1>404 page</h1>');
  },
  // Never answers (a frame that never loads); close() destroys the response.
  '/hang': () => {},
  // Saving always fails: the app's POST answers 500.
  '/api/save': (req, res) => {
    req.resume();
    res.writeHead(req.method === 'POST' ? 500 : 405, { 'content-type': 'application/json' });
    res.end('{"error":"the disk is full"}');
  },
  // One redirect to ?to= (chains nest it).
  '/redirect': (_req, res, url) => {
    res.writeHead(302, { location: url.searchParams.get('to') ?? '/child.html', 'access-control-allow-origin': '*' });
    res.end();
  },
  // Signs in: an httpOnly session cookie and a preference cookie, then the shop.
  '/session/login': (_req, res, url) => {
    const user = url.searchParams.get('user') ?? 'alice';
    res.writeHead(302, {
      'set-cookie': [
        `sid=${encodeURIComponent(user)}-${crypto.randomUUID()}; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600`,
        'prefs=compact; Path=/',
      ],
      location: `/storage-app.html?login=${encodeURIComponent(user)}`,
    });
    res.end();
  },
  // What the server sees of the session cookie.
  '/session/whoami': (req, res) => {
    const sid = /(?:^|;\s*)sid=([^;]*)/.exec(req.headers.cookie ?? '');
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(sid ? `signed in as ${decodeURIComponent(sid[1]!).split('-')[0]}` : 'nobody');
  },
  // The SDK's browser build as `npm run build` made it (pages import it like an app would).
  '/sdk/pagewire-client.js': async (_req, res) => {
    const body = await readFile(fileURLToPath(new URL('../../dist/browser/pagewire-client.js', import.meta.url)));
    res.writeHead(200, { 'content-type': 'text/javascript' });
    res.end(body);
  },
};

/** Pages made by a generator (too large to commit), each made once per server, on first request. */
const generated: Record<string, (query: URLSearchParams) => string> = {
  // ?entries=N: a shorter or longer index (tests and measurements); the default is the bench's.
  '/long-index.html': (query) => longIndexHtml(query.has('entries') ? { entries: Number(query.get('entries')) } : {}),
  // A library reference page whose highlighted code makes every token an element.
  '/task-guide.html': () => taskGuideHtml(),
};

async function handle(req: IncomingMessage, res: ServerResponse, made: Map<string, Buffer>): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const generate = generated[url.pathname];
  if (generate) {
    let body = made.get(url.href);
    if (!body) made.set(url.href, body = Buffer.from(generate(url.searchParams), 'utf8'));
    res.writeHead(200, { 'content-type': TYPES['.html']!, 'content-length': body.length });
    res.end(body);
    return;
  }
  const route = routes[url.pathname] ?? prefixRoutes.find(([prefix]) => url.pathname.startsWith(prefix))?.[1];
  if (route) return route(req, res, url);
  await serveFile(url.pathname, res);
}

/** A file of fixtures/pages by its URL path; never one outside it. */
async function serveFile(pathname: string, res: ServerResponse, dir = PAGES_DIR): Promise<void> {
  const rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
  if (rel.startsWith('..')) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(join(dir, rel));
    res.writeHead(200, { 'content-type': TYPES[extname(rel)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

export async function startFixtureServer(): Promise<FixtureServer> {
  // Responses still open (e.g. /hang), destroyed on close so that close() finishes promptly.
  const open = new Set<ServerResponse>();
  const seen: SeenRequest[] = [];
  const made = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', host: req.headers.host ?? '', websocket: false });
    if (seen.length > 10_000) seen.splice(0, seen.length - 10_000);
    open.add(res);
    res.once('close', () => open.delete(res));
    handle(req, res, made).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  // A live feed on /ws/…: says hello to every client.
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', host: req.headers.host ?? '', websocket: true });
    if (!(req.url ?? '').startsWith('/ws/')) return void socket.destroy();
    sockets.handleUpgrade(req, socket, head, (ws) => ws.send('hello'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const otherOrigin = `http://localhost:${port}`;
  return {
    origin,
    otherOrigin,
    port,
    url: (path) => `${origin}${path.startsWith('/') ? path : `/${path}`}`,
    otherUrl: (path) => `${otherOrigin}${path.startsWith('/') ? path : `/${path}`}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of sockets.clients) client.terminate();
        sockets.close();
        for (const res of open) res.destroy();
        open.clear();
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

let shared: Promise<FixtureServer> | undefined;

/** One fixture server for the whole test run, closed at its end. */
export function fixtureServer(): Promise<FixtureServer> {
  shared ??= startFixtureServer().then((server) => {
    onTeardown(() => server.close());
    return server;
  });
  return shared;
}
