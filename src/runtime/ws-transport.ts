// CDP over a WebSocket, for `--connect` to a browser someone else started (a farm's endpoint).
import WebSocket from 'ws';
import type { CdpTransport } from '../cdp/transport.ts';

export class WebSocketTransport implements CdpTransport {
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
  readonly #socket: WebSocket;
  #closed = false;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: WebSocket.RawData) => this.onmessage?.(data.toString()));
    socket.on(
      'close',
      (code: number, reason: Buffer) => this.#finish(`browser WebSocket closed (${code}${reason.length ? ` ${reason.toString()}` : ''})`),
    );
    socket.on('error', (error: Error) => this.#finish(`browser WebSocket error: ${error.message}`));
  }

  /** Opens the socket; full AX trees and screenshots are large, hence the 256 MiB payload cap. */
  static connect(url: string, timeoutMs: number, headers: Readonly<Record<string, string>> = {}): Promise<WebSocketTransport> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        perMessageDeflate: false,
        maxPayload: 256 * 1024 * 1024,
        allowSynchronousEvents: false,
        handshakeTimeout: timeoutMs,
        headers: { ...headers },
      });
      const fail = (error: Error) => {
        socket.removeAllListeners();
        socket.terminate();
        reject(error);
      };
      socket.once('error', fail);
      socket.once('open', () => {
        socket.off('error', fail);
        resolve(new WebSocketTransport(socket));
      });
    });
  }

  send(message: string): void {
    if (this.#closed) throw new Error('socket closed');
    this.#socket.send(message);
  }

  close(): void {
    this.#finish('closed by pagewire');
    this.#socket.close();
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.(reason);
  }
}
