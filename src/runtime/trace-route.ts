// GET /traces/<name> on the server's listener (PROTOCOL.md §16): a trace file, by its name only,
// for the inspector's trace view. Each request has passed the listener's Host, Origin and token
// checks; `find` says which file a name is for this principal (the files trace.export wrote for it,
// or the one file `pagewire trace show` serves), and anything else is 404: a path, `..`, a name
// nobody wrote.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, resolve } from 'node:path';
import type { Principal } from '../rpc/context.ts';
import { answer } from './http-server.ts';

/** The route's prefix: the listener hands it every path under it. */
export const TRACES_PATH = '/traces/';

/** Longest name looked at; a trace's own is far shorter. */
const MAX_NAME = 255;

/** A trace's file name from the request path, or undefined when it is not a plain file name. */
export function traceNameOf(url: string): string | undefined {
  const path = url.split('?')[0]!.split('#')[0]!;
  if (!path.startsWith(TRACES_PATH)) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(path.slice(TRACES_PATH.length));
  } catch {
    return undefined;
  }
  // deno-lint-ignore no-control-regex -- control characters never name a file we wrote
  if (name === '' || name.length > MAX_NAME || /[/\\\u0000-\u001f]/.test(name) || name.startsWith('.')) return undefined;
  return name;
}

export function traceRoute(find: (name: string, principal: Principal) => string | undefined) {
  return (req: IncomingMessage, res: ServerResponse, principal: Principal): void => {
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'GET only', { Allow: 'GET, HEAD' });
    const name = traceNameOf(req.url ?? '/');
    const path = name === undefined ? undefined : find(name, principal);
    if (name === undefined || path === undefined) return answer(res, 404, 'no such trace');
    void stat(path).then(
      (info) => {
        if (!info.isFile()) return answer(res, 404, 'no such trace');
        res.writeHead(200, {
          'Content-Type': 'application/zip',
          'Content-Length': info.size,
          'Content-Disposition': `attachment; filename="${name.replace(/[^A-Za-z0-9._ ()-]/g, '_')}"`,
          'Cache-Control': 'no-store',
          'Referrer-Policy': 'no-referrer',
          'X-Content-Type-Options': 'nosniff',
        });
        if (req.method === 'HEAD') return res.end();
        const stream = createReadStream(path);
        stream.on('error', () => res.destroy());
        stream.pipe(res);
      },
      () => answer(res, 404, 'no such trace'),
    );
  };
}

/**
 * The finder of `pagewire trace show FILE`: that one file, under its own name (whatever the name;
 * the user chose the file). Refuses a FILE that is not a readable regular file, with a sentence.
 */
export async function oneTraceFile(file: string): Promise<{ name: string; find: (name: string) => string | undefined }> {
  const path = resolve(file);
  const info = await stat(path).catch((error: { code?: string }) => {
    throw new Error(`cannot read ${file} (${error.code ?? 'unknown error'})`);
  });
  if (!info.isFile()) throw new Error(`${file} is not a file`);
  const name = basename(path);
  if (traceNameOf(TRACES_PATH + encodeURIComponent(name)) !== name) throw new Error(`${file}: its name cannot be served (rename it)`);
  return { name, find: (asked) => (asked === name ? path : undefined) };
}
