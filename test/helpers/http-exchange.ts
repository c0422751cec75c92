// A raw HTTP exchange for tests of the listener's plain HTTP paths (/mcp, /rpc): any method, any
// headers (a Host or Origin a fetch would not send), the answer read whole.
import type { Buffer } from 'node:buffer';
import { request } from 'node:http';

export type Answer = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

export function exchange(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
