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
  /** Messages sent in this task, written together once it yields (see send). */
  #outgoing: string[] = [];
  #closed = false;

  constructor(out: Writable, input: Readable) {
    this.#out = out;
    this.#in = input;
    input.on('data', (chunk: Buffer) => this.#onData(chunk));
    input.on('close', () => this.#finish('the browser closed its debugging pipe'));
    input.on('error', (error) => this.#finish(`debugging pipe error: ${error.message}`));
    out.on('error', (error) => this.#finish(`debugging pipe error: ${error.message}`));
  }

  /**
   * Every write wakes the browser's reader thread, and on a small machine the wake-up often takes
   * this process off its core for a while: the messages of one task (an observation sends four
   * calls at once) go out in a single write, each ended by its NUL.
   */
  send(message: string): void {
    if (this.#closed) throw new Error('pipe closed');
    this.#outgoing.push(message, '\0');
    if (this.#outgoing.length === 2) queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    const batch = this.#outgoing.join('');
    this.#outgoing = [];
    if (!this.#closed) this.#out.write(batch);
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
