// A scripted CDP peer behind the CdpTransport interface: records what the connection sends,
// answers by rule, and emits events and close on demand. For the transport's own unit tests.
import type { CdpTransport } from '../../src/cdp/transport.ts';

export interface SentMessage {
  id: number;
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

type Responder = (message: SentMessage) => { result?: unknown; error?: { code: number; message: string } } | undefined;

export class FakeCdpPeer implements CdpTransport {
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
  readonly sent: SentMessage[] = [];
  readonly #responders = new Map<string, Responder>();
  #closed = false;

  /** Answer every `method` call with `reply(message)` — synchronously, inside send(). */
  answer(method: string, reply: Responder): void {
    this.#responders.set(method, reply);
  }

  send(text: string): void {
    if (this.#closed) throw new Error('closed');
    const message = JSON.parse(text) as SentMessage;
    this.sent.push(message);
    const reply = this.#responders.get(message.method)?.(message);
    if (reply) this.deliver({ id: message.id, sessionId: message.sessionId, ...reply });
  }

  close(): void {
    this.#closed = true;
  }

  deliver(message: Record<string, unknown>): void {
    this.onmessage?.(JSON.stringify(message));
  }

  reply(id: number, result: unknown, sessionId?: string): void {
    this.deliver({ id, result, ...(sessionId ? { sessionId } : {}) });
  }

  emit(method: string, params: unknown, sessionId?: string): void {
    this.deliver({ method, params, ...(sessionId ? { sessionId } : {}) });
  }

  /** The peer went away (browser exit, pipe closed). */
  drop(reason: string): void {
    this.#closed = true;
    this.onclose?.(reason);
  }

  lastSent(method: string): SentMessage | undefined {
    return [...this.sent].reverse().find((m) => m.method === method);
  }
}

export function attachEvent(sessionId: string, targetId: string, type = 'page', extra: Record<string, unknown> = {}) {
  return {
    sessionId,
    waitingForDebugger: true,
    targetInfo: { targetId, type, title: '', url: '', attached: true, canAccessOpener: false, ...extra },
  };
}

/**
 * Resolves once `predicate` holds, checking after each task turn (inbound messages are handled
 * one per task); fails after `timeoutMs` so that a broken test ends.
 */
export async function until(predicate: () => boolean, timeoutMs = 2_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
