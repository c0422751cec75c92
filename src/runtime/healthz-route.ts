// GET /healthz (PROTOCOL.md §13, "Fleet"): whether this instance takes new sessions, for a
// balancer's health check and a Kubernetes probe. It takes no token (a prober holds none), so it
// says only what anyone who can reach the port may know: the instance id, the counts, and
// whether it drains; nothing about principals, sessions or pages.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answer } from './http-server.ts';

/** Why an instance takes no new session. */
export type Unready = 'draining' | 'full' | 'browser_unavailable';

export interface Health {
  readonly instance_id: string;
  readonly sessions: number;
  readonly max_sessions: number;
  readonly draining: boolean;
  /** Set when the instance takes no new session: it answers 503, and a balancer places nothing new on it. */
  readonly reason?: Unready;
}

export interface HealthSource {
  health(): Health;
}

export function healthzRoute(source: HealthSource): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    req.resume();
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(res, 405, 'GET /healthz', { Allow: 'GET, HEAD' });
    const health = source.health();
    const body = JSON.stringify({ ok: health.reason === undefined, ...health });
    res.writeHead(health.reason === undefined ? 200 : 503, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
