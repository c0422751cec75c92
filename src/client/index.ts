// `pagewire/client` for Node and Deno: the runtime's WebSocket where it has one (Deno, Node 22+),
// else the `ws` package, imported only then (Node 20).
import { Client, type ClientOptions } from './client.ts';
import { globalWebSocket, type SocketFactory, type WebSocketLike } from './socket.ts';

export * from './exports.ts';

async function defaultFactory(): Promise<SocketFactory> {
  const Global = globalWebSocket();
  if (Global) return (url) => new Global(url);
  // Required as CommonJS: Node 20's ESM loader takes some 45 ms more CPU to load ws through its
  // ESM wrapper, which a command-line call pays on every run.
  const { createRequire } = await import('node:module');
  const { WebSocket } = createRequire(import.meta.url)('ws') as typeof import('ws');
  return (url) => new WebSocket(url) as unknown as WebSocketLike;
}

/** Connects to a pagewire server (`ws://127.0.0.1:9333/?token=…`, as its ready line prints). */
export async function connect(url: string, options: ClientOptions = {}): Promise<Client> {
  const Class = options.WebSocket;
  const createSocket = options.createSocket ?? (Class ? (u: string) => new Class(u) : await defaultFactory());
  return Client.connect(url, { ...options, createSocket });
}
