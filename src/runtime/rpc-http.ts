// POST /rpc (PROTOCOL.md §13): one JSON-RPC request or batch per HTTP request, for clients that
// hold no socket. The listener has already checked Host, Origin and the token (http-server.ts);
// this route refuses only what HTTP itself refuses (405, 415, 413), then hands the body over as
// the socket hands over one text frame, and writes back what the socket would send.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../rpc/context.ts';
import { type Logger, silentLogger } from '../util/log.ts';
import { readBody } from './http-body.ts';
import { answer, type CorsPolicy, type HttpRoute } from './http-server.ts';

/** What a page of an accepted Origin may send to /rpc: a JSON POST with its token in a header. */
export const RPC_CORS: CorsPolicy = {
  methods: ['POST'],
  requestHeaders: ['authorization', 'content-type', 'pagewire-instance'],
  exposeHeaders: ['www-authenticate', 'pagewire-instance'],
  maxAgeSeconds: 7200,
};

export interface RpcHttpOptions {
  /** The socket's inbound message limit: a longer body is 413, as a longer frame closes a socket with 1009. */
  maxBodyBytes: number;
  /**
   * Answers one body as the socket answers one text frame (undefined: nothing to send back).
   * `signal` aborts when the HTTP request is over: answered, or closed by the client before.
   */
  handle(text: string, principal: Principal, signal: AbortSignal): Promise<string | undefined>;
  log?: Logger;
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
function isJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

export function rpcHttpRoute(options: RpcHttpOptions): HttpRoute {
  const log = options.log ?? silentLogger;
  const serve = async (req: IncomingMessage, res: ServerResponse, principal: Principal): Promise<void> => {
    if (req.method !== 'POST') {
      req.resume();
      return answer(res, 405, 'POST a JSON-RPC request to /rpc', { Allow: 'POST' });
    }
    if (!isJson(req.headers['content-type'])) {
      req.resume();
      return answer(res, 415, 'send the JSON-RPC request as Content-Type: application/json');
    }
    const tooLarge = `request body too large: at most ${options.maxBodyBytes} bytes`;
    if (Number(req.headers['content-length'] ?? 0) > options.maxBodyBytes) return answer(res, 413, tooLarge);
    const over = new AbortController();
    res.once('close', () => over.abort());
    const body = await readBody(req, options.maxBodyBytes);
    if (body === undefined) return answer(res, 413, tooLarge);
    const reply = await options.handle(body, principal, over.signal);
    if (res.destroyed) return; // the client went away; the call ran all the same (a re-send finds its request_id)
    if (reply === undefined) {
      res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(reply),
      'Cache-Control': 'no-store',
    });
    res.end(reply);
  };
  return (req, res, principal) => {
    serve(req, res, principal).catch((error: unknown) => {
      log.error('rpc request failed', { error });
      if (!res.headersSent) answer(res, 500, 'internal error');
      else res.destroy();
    });
  };
}
