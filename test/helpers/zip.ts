// Reads a ZIP as a stranger would: the end record, the central directory, each local header, the
// stored or deflated bytes, and each entry's CRC checked (trace files, PROTOCOL.md §16).
import { inflateRawSync } from 'node:zlib';
import { crc32 } from '../../src/util/zip.ts';

export interface ZipEntryRead {
  name: string;
  method: number;
  data: Uint8Array;
}

export function readZip(bytes: Uint8Array): ZipEntryRead[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error('no end of central directory record');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: ZipEntryRead[] = [];
  for (let n = 0; n < count; n++) {
    if (view.getUint32(at, true) !== 0x02014b50) throw new Error(`no central header at ${at}`);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const compressed = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extra = view.getUint16(at + 30, true);
    const comment = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    if (view.getUint32(local, true) !== 0x04034b50) throw new Error(`no local header for ${name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const body = bytes.subarray(start, start + compressed);
    const data = method === 8 ? new Uint8Array(inflateRawSync(body)) : method === 0 ? body : undefined;
    if (!data) throw new Error(`${name}: unknown method ${method}`);
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, the directory says ${size}`);
    if (crc32(data) !== crc) throw new Error(`${name}: CRC mismatch`);
    entries.push({ name, method, data });
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

/** The lines of a JSONL entry, parsed. */
export function jsonLines<T = Record<string, unknown>>(entry: ZipEntryRead | undefined): T[] {
  if (!entry) throw new Error('no such entry');
  return new TextDecoder().decode(entry.data).split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as T);
}
