// Trace files written by the tests themselves (the format of PROTOCOL.md §16): a plain ZIP whose
// entries are STORED or raw DEFLATE, and the ways one can be wrong (another version, another
// format, a missing entry, damaged bytes) for the inspector's refusals.
import { Buffer } from 'node:buffer';
import { deflateRawSync } from 'node:zlib';
import { ZipWriter } from '../../src/util/zip.ts';

export interface ZipInput {
  name: string;
  data: Uint8Array | string;
  /** Raw DEFLATE (method 8) instead of STORE. */
  deflate?: boolean;
}

/** A ZIP of `entries` in order, framed by the server's own writer. */
export function zipOf(entries: ZipInput[]): Uint8Array {
  const zip = new ZipWriter(new Date());
  const parts: Uint8Array[] = [];
  for (const entry of entries) {
    const data = typeof entry.data === 'string' ? new TextEncoder().encode(entry.data) : entry.data;
    parts.push(...zip.entry(entry.name, entry.deflate ? { data, deflated: new Uint8Array(deflateRawSync(data)) } : { data }));
  }
  parts.push(...zip.finish());
  return new Uint8Array(Buffer.concat(parts));
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
