// Trace files written by the tests themselves (the format of PROTOCOL.md §13's traces): a plain
// ZIP whose entries are STORED or raw DEFLATE, and the ways one can be wrong (another version,
// another format, a missing entry, damaged bytes) for the inspector's refusals.
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipInput {
  name: string;
  data: Uint8Array | string;
  /** Raw DEFLATE (method 8) instead of STORE. */
  deflate?: boolean;
}

/** A ZIP of `entries` in order: local headers, then the central directory and its end record. */
export function zipOf(entries: ZipInput[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const directory: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const data = typeof entry.data === 'string' ? new TextEncoder().encode(entry.data) : entry.data;
    const stored = entry.deflate ? new Uint8Array(deflateRawSync(data)) : data;
    const crc = crc32(data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(8, entry.deflate ? 8 : 0, true);
    local.setUint32(14, crc, true);
    local.setUint32(18, stored.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, name.length, true);
    const central = new DataView(new ArrayBuffer(46));
    central.setUint32(0, 0x02014b50, true);
    central.setUint16(4, 20, true);
    central.setUint16(6, 20, true);
    central.setUint16(10, entry.deflate ? 8 : 0, true);
    central.setUint32(16, crc, true);
    central.setUint32(20, stored.length, true);
    central.setUint32(24, data.length, true);
    central.setUint16(28, name.length, true);
    central.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, stored);
    directory.push(new Uint8Array(central.buffer), name);
    offset += 30 + name.length + stored.length;
  }
  const directorySize = directory.reduce((sum, part) => sum + part.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, directorySize, true);
  end.setUint32(16, offset, true);
  return concat([...parts, ...directory, new Uint8Array(end.buffer)]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export interface TraceInput {
  /** Fields over the defaults of a version 1 header (`format`, `version`… can be made wrong). */
  header?: Record<string, unknown>;
  steps: Array<Record<string, unknown>>;
  events?: Array<Record<string, unknown>>;
  frames?: Record<string, Uint8Array>;
  /** The JSON entries DEFLATED (frames are always STORED). */
  deflate?: boolean;
  /** Entries left out (to make an incomplete trace). */
  without?: string[];
}

/** A trace file as the server writes one: trace.json first, steps, events, then the frames. */
export function traceZip(input: TraceInput): Uint8Array {
  const steps = input.steps;
  const events = input.events ?? [];
  const frames = input.frames ?? {};
  const started = Number(steps[0]?.['at'] ?? Date.now());
  const header = {
    format: 'pagewire-trace',
    version: 1,
    pagewire: '0.1.0',
    protocol: '1',
    session_id: 'test-session',
    started_at: started,
    ended_at: started + 5_000,
    steps: steps.length,
    events: events.length,
    frames: Object.keys(frames).length,
    dropped_frames: 0,
    ...input.header,
  };
  const lines = (values: unknown[]) => values.map((value) => `${JSON.stringify(value)}\n`).join('');
  const entries: ZipInput[] = [
    { name: 'trace.json', data: JSON.stringify(header), deflate: input.deflate ?? false },
    { name: 'steps.jsonl', data: lines(steps), deflate: input.deflate ?? false },
    { name: 'events.jsonl', data: lines(events), deflate: input.deflate ?? false },
    ...Object.entries(frames).map(([name, data]) => ({ name, data })),
  ];
  return zipOf(entries.filter((entry) => !input.without?.includes(entry.name)));
}
