// A ZIP writer (PKWARE APPNOTE 6.3: local headers, the central directory and its end record; no
// ZIP64, no encryption), enough for a trace file (PROTOCOL.md §16). It only frames bytes: an entry
// is stored as given, or deflated by the caller (raw deflate, method 8) where the runtime has a
// compressor. It hands back the file's parts in order, so the caller writes them as they come and
// never holds the whole file.

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL = 0x06054b50;
/** 2.0: the version that reads deflate (and stored) entries. */
const VERSION_NEEDED = 20;
/** Bit 11: names are UTF-8. */
const UTF8_NAMES = 0x0800;
/** "Made by" Unix (3, high byte): the external attributes below are Unix modes. */
const MADE_BY_UNIX = 3 << 8;
const STORED = 0;
const DEFLATED = 8;
/** Past these a ZIP needs ZIP64 records, which this writer does not write. */
const MAX_ENTRIES = 0xffff;
const MAX_BYTES = 0xffffffff;

/** The CRC-32 table of the reflected IEEE polynomial: a constant of the algorithm. */
const CRC_TABLE = (() => {
  const built = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    built[n] = c >>> 0;
  }
  return built;
})();

/** PURE: the CRC-32 (IEEE 802.3, as ZIP and gzip use it) of `bytes`. */
export function crc32(bytes: Uint8Array): number {
  const t = CRC_TABLE;
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** MS-DOS date and time, as ZIP headers keep them (two-second steps, local fields read as UTC here). */
function dosTime(date: Date): { time: number; date: number } {
  const year = Math.max(1980, date.getUTCFullYear());
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

interface Written {
  name: Uint8Array;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/** What one entry holds: its bytes, and the same deflated when the caller compressed them. */
export interface ZipEntryData {
  data: Uint8Array;
  /** `data` as raw deflate (no zlib header); stored as it is when absent. */
  deflated?: Uint8Array;
}

export class ZipWriter {
  readonly #written: Written[] = [];
  readonly #stamp: { time: number; date: number };
  #offset = 0;
  #finished = false;

  /** `modified`: the time every entry is stamped with. */
  constructor(modified: Date) {
    this.#stamp = dosTime(modified);
  }

  /** The parts of one entry (its local header, then its bytes), to be written next in the file. */
  entry(name: string, entry: ZipEntryData): Uint8Array[] {
    if (this.#finished) throw new Error('the zip is already finished');
    if (this.#written.length >= MAX_ENTRIES) throw new Error(`a zip without ZIP64 holds at most ${MAX_ENTRIES} entries`);
    const encodedName = new TextEncoder().encode(name);
    // Deflate only where it saves something (a JPEG does not shrink).
    const deflate = entry.deflated !== undefined && entry.deflated.length < entry.data.length;
    const body = deflate ? entry.deflated! : entry.data;
    if (entry.data.length > MAX_BYTES || this.#offset + body.length + 30 + encodedName.length > MAX_BYTES) {
      throw new Error('a zip without ZIP64 holds at most 4 GiB');
    }
    const written: Written = {
      name: encodedName,
      method: deflate ? DEFLATED : STORED,
      crc: crc32(entry.data),
      compressedSize: body.length,
      size: entry.data.length,
      offset: this.#offset,
    };
    const header = new DataView(new ArrayBuffer(30));
    header.setUint32(0, LOCAL_HEADER, true);
    header.setUint16(4, VERSION_NEEDED, true);
    header.setUint16(6, UTF8_NAMES, true);
    header.setUint16(8, written.method, true);
    header.setUint16(10, this.#stamp.time, true);
    header.setUint16(12, this.#stamp.date, true);
    header.setUint32(14, written.crc, true);
    header.setUint32(18, written.compressedSize, true);
    header.setUint32(22, written.size, true);
    header.setUint16(26, encodedName.length, true);
    header.setUint16(28, 0, true);
    this.#written.push(written);
    this.#offset += 30 + encodedName.length + body.length;
    return [new Uint8Array(header.buffer), encodedName, body];
  }

  /** The central directory and its end record: the file's last parts. */
  finish(): Uint8Array[] {
    if (this.#finished) throw new Error('the zip is already finished');
    this.#finished = true;
    const parts: Uint8Array[] = [];
    let size = 0;
    for (const entry of this.#written) {
      const header = new DataView(new ArrayBuffer(46));
      header.setUint32(0, CENTRAL_HEADER, true);
      header.setUint16(4, MADE_BY_UNIX | VERSION_NEEDED, true);
      header.setUint16(6, VERSION_NEEDED, true);
      header.setUint16(8, UTF8_NAMES, true);
      header.setUint16(10, entry.method, true);
      header.setUint16(12, this.#stamp.time, true);
      header.setUint16(14, this.#stamp.date, true);
      header.setUint32(16, entry.crc, true);
      header.setUint32(20, entry.compressedSize, true);
      header.setUint32(24, entry.size, true);
      header.setUint16(28, entry.name.length, true);
      // Extra field, comment, disk number, internal attributes: none.
      header.setUint32(38, 0o100644 << 16, true); // external attributes: a regular file, rw-r--r--
      header.setUint32(42, entry.offset, true);
      parts.push(new Uint8Array(header.buffer), entry.name);
      size += 46 + entry.name.length;
    }
    const end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, END_OF_CENTRAL, true);
    end.setUint16(8, this.#written.length, true);
    end.setUint16(10, this.#written.length, true);
    end.setUint32(12, size, true);
    end.setUint32(16, this.#offset, true);
    parts.push(new Uint8Array(end.buffer));
    return parts;
  }
}
