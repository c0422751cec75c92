// The body of a plain HTTP request on the listener (/mcp, /rpc), read whole up to a bound.
import { Buffer } from 'node:buffer';
import type { IncomingMessage } from 'node:http';

/** The whole body as text, or undefined past `maxBytes` (the rest is not read). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
