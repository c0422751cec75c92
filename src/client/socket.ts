// The little of a WebSocket the SDK uses: the WHATWG shape that browsers, Deno, Node 22+ and the
// `ws` package all have. Nothing here picks an implementation; the entry points do.

export interface SocketMessageEvent {
  readonly data: unknown;
}

export interface SocketCloseEvent {
  readonly code: number;
  readonly reason: string;
}

export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: SocketMessageEvent) => void) | null;
  onclose: ((event: SocketCloseEvent) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

/** A WebSocket class (the global one, `ws`'s, a test's wrapper). */
export type WebSocketClass = new (url: string) => WebSocketLike;

/** Opens one socket to `url`; called again for every reconnect. */
export type SocketFactory = (url: string) => WebSocketLike;

export const OPEN = 1;

/** The global WebSocket class, where the runtime has one (browsers, Deno, Node 22+). */
export function globalWebSocket(): WebSocketClass | undefined {
  return (globalThis as { WebSocket?: WebSocketClass }).WebSocket;
}

/** Text of a message event: `ws` may hand a Buffer where the others hand a string. */
export function messageText(data: unknown): string {
  return typeof data === 'string' ? data : String(data);
}

/** What an error event says, where the implementation says anything (`ws`: "Unexpected server response: 401"). */
export function errorText(event: unknown): string | undefined {
  const message = (event as { message?: unknown; error?: { message?: unknown } } | null)?.message ??
    (event as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}
