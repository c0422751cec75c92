// CDP over --remote-debugging-pipe: JSON messages separated by NUL bytes, written to the
// browser's fd 3 and read from its fd 4. When our process dies the pipe closes and the
// browser exits on its own, which is why launched browsers use it.
import type { Readable, Writable } from 'node:stream';
import type { CdpTransport } from '../cdp/transport.ts';

export class PipeTransport implements CdpTransport {
  onmessage?: (message: string) => void;
  onclose?: (reason: string) => void;
  readonly #out: Writable;
  readonly #in: Readable;
  // Chunks of the message being received; only the newest chunk is scanned for NUL, so a
  // 30 MB reply costs linear time instead of re-scanning the buffer on every 64 KiB chunk.
  #partial: Buffer[] = [];
  #closed = false;

  constructor(out: Writable, input: Readable) {
    this.#out = out;
    this.#in = input;
    input.on('data', (chunk: Buffer) => this.#onData(chunk));
    input.on('close', () => this.#finish('the browser closed its debugging pipe'));
    input.on('error', (error) => this.#finish(`debugging pipe error: ${error.message}`));
    out.on('error', (error) => this.#finish(`debugging pipe error: ${error.message}`));
  }

  send(message: string): void {
    if (this.#closed) throw new Error('pipe closed');
    this.#out.write(message);
    this.#out.write('\0');
  }

  close(): void {
    this.#finish('closed by pagewire');
    this.#out.destroy();
    this.#in.destroy();
  }

  #onData(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      this.#partial.push(chunk.subarray(start, end));
      const message = Buffer.concat(this.#partial).toString('utf8');
      this.#partial = [];
      this.onmessage?.(message);
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.#partial.push(chunk.subarray(start));
  }

  #finish(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.(reason);
  }
}
