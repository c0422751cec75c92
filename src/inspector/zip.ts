// Reading a ZIP file in the page (a trace is one): the central directory names the entries, each
// entry is STORED or raw DEFLATE (inflated by the browser's DecompressionStream), and its CRC-32
// is checked, so a damaged file is refused with a sentence instead of showing wrong data.
// Neither ZIP64 nor encryption: a trace uses neither (PROTOCOL.md §16, "The file"). The server
// frames the same files with src/util/zip.ts, whose CRC-32 this reader checks against.
import { crc32 } from '../util/zip.ts';

/** Why a file could not be read as a ZIP, as a sentence for the page. */
export class ZipError extends Error {
  override name = 'ZipError';
}

interface Entry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const END_OF_DIRECTORY_BYTES = 22;
const DIRECTORY_ENTRY_BYTES = 46;
const LOCAL_HEADER_BYTES = 30;
const MAX_COMMENT_BYTES = 0xffff;
const STORED = 0;
const DEFLATED = 8;
const ENCRYPTED_FLAG = 0x1;

export class ZipArchive {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #entries = new Map<string, Entry>();

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#readDirectory();
  }

  /** Entry names, in the directory's order. */
  names(): string[] {
    return [...this.#entries.keys()];
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  async text(name: string): Promise<string> {
    return new TextDecoder('utf-8', { fatal: false }).decode(await this.bytes(name));
  }

  async bytes(name: string): Promise<Uint8Array> {
    const entry = this.#entries.get(name);
    if (!entry) throw new ZipError(`The file has no entry ${name}.`);
    const start = this.#dataStart(entry);
    const stored = this.#bytes.subarray(start, start + entry.compressedSize);
    if (stored.length !== entry.compressedSize) throw new ZipError(`The file is cut short: ${name} is incomplete.`);
    let data: Uint8Array;
    if (entry.method === STORED) data = stored;
    else if (entry.method === DEFLATED) data = await inflate(stored, entry);
    else throw new ZipError(`${name} is compressed with method ${entry.method}; only STORE and DEFLATE are read.`);
    if (data.length !== entry.size) throw new ZipError(`${name} is damaged: it holds ${data.length} bytes, not ${entry.size}.`);
    if (crc32(data) !== entry.crc) throw new ZipError(`${name} is damaged: its checksum does not match.`);
    return data;
  }

  #readDirectory(): void {
    const end = this.#findEnd();
    const view = this.#view;
    const count = view.getUint16(end + 10, true);
    const size = view.getUint32(end + 12, true);
    const offset = view.getUint32(end + 16, true);
    if (count === 0xffff || offset === 0xffffffff) throw new ZipError('The file is a ZIP64 archive, which a trace never is.');
    if (offset + size > end) throw new ZipError('The file is not a complete ZIP: its directory points past its end.');
    let at = offset;
    for (let i = 0; i < count; i++) {
      if (at + DIRECTORY_ENTRY_BYTES > end || view.getUint32(at, true) !== DIRECTORY_ENTRY) {
        throw new ZipError('The file is damaged: its ZIP directory is broken.');
      }
      const flags = view.getUint16(at + 8, true);
      const nameLength = view.getUint16(at + 28, true);
      const extraLength = view.getUint16(at + 30, true);
      const commentLength = view.getUint16(at + 32, true);
      const name = new TextDecoder().decode(this.#bytes.subarray(at + DIRECTORY_ENTRY_BYTES, at + DIRECTORY_ENTRY_BYTES + nameLength));
      if (flags & ENCRYPTED_FLAG) throw new ZipError(`${name} is encrypted; a trace is never encrypted.`);
      this.#entries.set(name, {
        name,
        method: view.getUint16(at + 10, true),
        crc: view.getUint32(at + 16, true),
        compressedSize: view.getUint32(at + 20, true),
        size: view.getUint32(at + 24, true),
        localOffset: view.getUint32(at + 42, true),
      });
      at += DIRECTORY_ENTRY_BYTES + nameLength + extraLength + commentLength;
    }
  }

  /** The end-of-directory record: the last one, searched back over a possible comment. */
  #findEnd(): number {
    const last = this.#bytes.length - END_OF_DIRECTORY_BYTES;
    for (let at = last; at >= 0 && at >= last - MAX_COMMENT_BYTES; at--) {
      if (this.#view.getUint32(at, true) === END_OF_DIRECTORY) return at;
    }
    throw new ZipError('The file is not a ZIP archive (or it is cut short: its directory is missing).');
  }

  #dataStart(entry: Entry): number {
    const at = entry.localOffset;
    if (at + LOCAL_HEADER_BYTES > this.#bytes.length || this.#view.getUint32(at, true) !== LOCAL_HEADER) {
      throw new ZipError(`The file is damaged: the header of ${entry.name} is missing.`);
    }
    return at + LOCAL_HEADER_BYTES + this.#view.getUint16(at + 26, true) + this.#view.getUint16(at + 28, true);
  }
}

/** Raw DEFLATE, inflated by the browser; stopped once it grows past the size the directory declares. */
async function inflate(compressed: Uint8Array, entry: Entry): Promise<Uint8Array> {
  const stream = new Blob([compressed as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  const reader = stream.getReader();
  const out = new Uint8Array(entry.size);
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (length + value.length > entry.size) {
        await reader.cancel();
        throw new ZipError(`${entry.name} is damaged: it inflates past its declared ${entry.size} bytes.`);
      }
      out.set(value, length);
      length += value.length;
    }
  } catch (error) {
    if (error instanceof ZipError) throw error;
    throw new ZipError(`${entry.name} is damaged: it does not inflate.`);
  }
  return out.subarray(0, length);
}
