// The SDK for browser pages (built into one ES module, dist/browser/pagewire-client.js): the
// page's own WebSocket, no imports. The server must allow the page's origin (--allow-origin).
import { Client, type ClientOptions } from './client.ts';
import { globalWebSocket } from './socket.ts';

export * from './exports.ts';

export async function connect(url: string, options: ClientOptions = {}): Promise<Client> {
  const Class = options.WebSocket ?? globalWebSocket();
  if (!options.createSocket && !Class) throw new TypeError('no WebSocket in this runtime: pass { WebSocket } or { createSocket }');
  const createSocket = options.createSocket ?? ((url: string) => new Class!(url));
  return Client.connect(url, { ...options, createSocket });
}
