// A trace file (PROTOCOL.md §16) opened in the page (§13, "The inspector"): its header checked, its
// steps and events read, its frames handed out as images. Anything that is not a trace this
// page can read is refused with one sentence that says why.
import type { TraceEvent, TraceHeader, TraceStep } from '../wire/index.ts';
import { ZipArchive, ZipError } from './zip.ts';

export type { TraceEvent, TraceHeader, TraceStep };
/** The box of a step's target, in CSS px of the viewport of its frame before. */
export type TraceBox = NonNullable<TraceStep['target']>['box'];

/** The `format` of a trace's header (PROTOCOL.md §16): the reader's own copy, as the wire's schema module carries zod. */
export const TRACE_FORMAT = 'pagewire-trace';
/** The trace versions this page reads. */
export const TRACE_VERSIONS: readonly number[] = [1];

/** Why a file is not shown, as the sentence the page says. */
export class TraceError extends Error {
  override name = 'TraceError';
}

const HEADER = 'trace.json';
const STEPS = 'steps.jsonl';
const EVENTS = 'events.jsonl';

export class Trace {
  readonly fileName: string;
  readonly header: TraceHeader;
  readonly steps: readonly TraceStep[];
  readonly events: readonly TraceEvent[];
  readonly #zip: ZipArchive;
  /** Each frame's image, read once for as long as this trace is open. */
  readonly #frames = new Map<string, Promise<string>>();

  constructor(fileName: string, zip: ZipArchive, header: TraceHeader, steps: TraceStep[], events: TraceEvent[]) {
    this.fileName = fileName;
    this.#zip = zip;
    this.header = header;
    this.steps = steps;
    this.events = events;
  }

  /**
   * A frame as a `data:` URL (the inspector's page allows images from itself and `data:` only).
   * A frame the file lacks or that is damaged is `undefined`: the step still shows.
   */
  frame(path: string): Promise<string | undefined> {
    if (!this.#zip.has(path)) return Promise.resolve(undefined);
    let url = this.#frames.get(path);
    if (!url) {
      url = this.#zip.bytes(path).then((bytes) => `data:image/jpeg;base64,${base64(bytes)}`);
      this.#frames.set(path, url);
    }
    return url.catch(() => undefined);
  }
}

function base64(bytes: Uint8Array): string {
  let binary = '';
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Reads a trace file; throws a TraceError whose message is the sentence to show. */
export async function readTrace(fileName: string, bytes: Uint8Array): Promise<Trace> {
  const named = JSON.stringify(fileName);
  let zip: ZipArchive;
  try {
    zip = new ZipArchive(bytes);
  } catch (error) {
    throw new TraceError(`${named} cannot be opened: ${(error as Error).message}`);
  }
  for (const entry of [HEADER, STEPS, EVENTS]) {
    if (!zip.has(entry)) throw new TraceError(`${named} is not a pagewire trace: it has no ${entry}.`);
  }
  try {
    const header = parseHeader(await zip.text(HEADER), named);
    const steps = parseLines(await zip.text(STEPS), STEPS, isStep, named);
    const events = parseLines(await zip.text(EVENTS), EVENTS, isEvent, named);
    return new Trace(fileName, zip, header, steps, events);
  } catch (error) {
    if (error instanceof ZipError) throw new TraceError(`${named} cannot be opened: ${error.message}`);
    throw error;
  }
}

function parseHeader(text: string, named: string): TraceHeader {
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch {
    throw new TraceError(`${named} is damaged: its ${HEADER} is not JSON.`);
  }
  if (!isRecord(header)) throw new TraceError(`${named} is damaged: its ${HEADER} is not a JSON object.`);
  if (header['format'] !== TRACE_FORMAT) {
    throw new TraceError(
      `${named} is not a pagewire trace: its format is ${JSON.stringify(header['format'] ?? null)}, not "${TRACE_FORMAT}".`,
    );
  }
  if (typeof header['version'] !== 'number' || !TRACE_VERSIONS.includes(header['version'])) {
    const by = typeof header['pagewire'] === 'string' ? ` (written by pagewire ${header['pagewire']})` : '';
    throw new TraceError(
      `${named} is a pagewire trace of version ${JSON.stringify(header['version'] ?? null)}${by}; this inspector reads version ${
        TRACE_VERSIONS.join(', ')
      } only.`,
    );
  }
  return header as unknown as TraceHeader;
}

function parseLines<T>(text: string, entry: string, valid: (value: unknown) => value is T, named: string): T[] {
  const out: T[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TraceError(`${named} is damaged: line ${index + 1} of ${entry} is not JSON.`);
    }
    if (!valid(value)) {
      throw new TraceError(`${named} is damaged: line ${index + 1} of ${entry} is not a ${entry === STEPS ? 'step' : 'event'}.`);
    }
    out.push(value);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStep(value: unknown): value is TraceStep {
  return isRecord(value) && typeof value['seq'] === 'number' && typeof value['method'] === 'string' && typeof value['at'] === 'number' &&
    isRecord(value['params']);
}

function isEvent(value: unknown): value is TraceEvent {
  return isRecord(value) && typeof value['seq'] === 'number' && typeof value['kind'] === 'string' && typeof value['at'] === 'number';
}
