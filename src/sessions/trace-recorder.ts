// A session's trace (PROTOCOL.md §16): every call on the session in the order it began, with its
// params and answer (redacted), the session's events while recording, and the screenshots the
// rpc layer takes around each act. Owned by its Session: created with it, disposed with it.
//
// Memory stays bounded while recording: screenshots go to the spill (a folder of the session's,
// written by the runtime) as soon as they are taken and only their numbers stay here; past the
// cap the oldest are dropped and counted. Steps are never dropped: they are what the trace is for.
import type { EventLog } from '../events/event-log.ts';
import type { SessionEvent } from '../events/types.ts';
import type { Disposable } from '../util/disposable.ts';
import { BoundedMap } from '../util/bounded-map.ts';
import { scrubStrings } from '../util/redact.ts';
import { TRACE_FORMAT, TRACE_VERSION, type TraceEvent, type TraceHeader, type TraceStep } from '../wire/index.ts';
import type { NetworkEntry } from '../wire/index.ts';

/** Screenshots a session keeps by default; an act takes two. */
export const DEFAULT_MAX_FRAMES = 200;
/** Events a trace keeps; past them the newest are counted, not kept (a page can log without end). */
export const MAX_EVENTS = 20_000;
/** State ids remembered for `acted_on`: far more than states a session keeps usable. */
const STATES_REMEMBERED = 1_024;

/** Where a trace's screenshots wait for the export, out of memory (src/runtime/trace-files.ts). */
export interface TraceSpill {
  write(name: string, bytes: Uint8Array): Promise<void>;
  read(name: string): Promise<Uint8Array>;
  remove(name: string): Promise<void>;
  /** Removes everything spilled (the session closed). */
  dispose(): Promise<void>;
}

export interface TraceRecorderOptions {
  sessionId: string;
  events: EventLog;
  spill: TraceSpill;
  /**
   * What hides, in every string recorded, what the session hides now (typed passwords, secrets):
   * asked once per step, as a step ends.
   */
  scrubber: () => (text: string) => string;
  maxFrames?: number;
  viewport?: { width: number; height: number } | undefined;
  now?: () => number;
}

/** A call being recorded: `seq` and when it began. */
export interface OpenStep {
  readonly seq: number;
  readonly at: number;
}

/** How a recorded call ended, as the rpc layer saw it. */
export interface StepEnd {
  /** The params as they should appear (the rpc layer hides what act typed). */
  params: Record<string, unknown>;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  tabId?: string | undefined;
  frameBefore?: string | undefined;
  frameAfter?: string | undefined;
  target?: { ref: string; box: { x: number; y: number; width: number; height: number } } | undefined;
  frameScale?: number | undefined;
}

/** One entry of the trace file, in the order it is written. */
export interface TraceEntry {
  name: string;
  data: Uint8Array;
}

/** What the header says beside what the recorder knows: the versions of the server that wrote it. */
export interface TraceVersions {
  pagewire: string;
  protocol: string;
}

const FRAME_NAME = /^frames\/(\d+)\.jpg$/;

function stateIdsOf(result: unknown): string[] {
  if (result === null || typeof result !== 'object') return [];
  const record = result as Record<string, unknown>;
  const ids: string[] = [];
  const push = (value: unknown) => {
    if (typeof value === 'string') ids.push(value);
  };
  push(record['state_id']);
  for (const key of ['observation', 'fresh_state']) {
    const inner = record[key];
    if (inner !== null && typeof inner === 'object') push((inner as Record<string, unknown>)['state_id']);
  }
  return ids;
}

export class TraceRecorder {
  readonly #options: TraceRecorderOptions;
  readonly #maxFrames: number;
  readonly #now: () => number;
  readonly #steps: TraceStep[] = [];
  readonly #events: TraceEvent[] = [];
  readonly #open = new Set<number>();
  /** state_id → the seq of the step that answered it. */
  readonly #stateSteps = new BoundedMap<string, number>(STATES_REMEMBERED);
  /** Numbers of the frames kept, oldest first. */
  readonly #frames: number[] = [];
  #lastStep = 0;
  #lastFrame = 0;
  #droppedFrames = 0;
  #droppedEvents = 0;
  #startedAt: number | undefined;
  #watching: Disposable | undefined;
  #disposed = false;

  constructor(options: TraceRecorderOptions) {
    this.#options = options;
    this.#maxFrames = options.maxFrames ?? DEFAULT_MAX_FRAMES;
    this.#now = options.now ?? (() => Date.now());
  }

  get recording(): boolean {
    return this.#watching !== undefined;
  }

  /** Whether anything was ever recorded (trace.export has something to write). */
  get started(): boolean {
    return this.#startedAt !== undefined;
  }

  get steps(): number {
    return this.#steps.length;
  }

  get frames(): number {
    return this.#frames.length;
  }

  get droppedFrames(): number {
    return this.#droppedFrames;
  }

  /** Starts (or goes on) recording. Idempotent. */
  start(): void {
    if (this.recording || this.#disposed) return;
    this.#startedAt ??= this.#now();
    this.#watching = this.#options.events.subscribe((event) => this.#onEvent(event));
  }

  /** Stops recording; what was recorded stays for the export. Idempotent. */
  stop(): void {
    this.#watching?.dispose();
    this.#watching = undefined;
  }

  /** A call begins: its number, or undefined when nothing is recorded. */
  begin(): OpenStep | undefined {
    if (!this.recording) return undefined;
    const step = { seq: ++this.#lastStep, at: this.#now() };
    this.#open.add(step.seq);
    return step;
  }

  /** The call `step` ended: recorded whole, scrubbed of what the session hides now. */
  finish(step: OpenStep, method: string, end: StepEnd): void {
    this.#open.delete(step.seq);
    if (this.#disposed) return;
    const scrub = this.#options.scrubber();
    const stateId = end.params['state_id'];
    const actedOn = typeof stateId === 'string' ? this.#stateSteps.get(stateId) : undefined;
    const record: TraceStep = {
      seq: step.seq,
      method,
      ...(end.tabId !== undefined ? { tab_id: end.tabId } : {}),
      at: step.at,
      duration_ms: Math.max(0, this.#now() - step.at),
      params: scrubStrings(end.params, scrub),
      ...(end.result !== undefined ? { result: scrubStrings(end.result, scrub) } : {}),
      ...(end.error !== undefined ? { error: scrubStrings(end.error, scrub) } : {}),
      ...(actedOn !== undefined ? { acted_on: actedOn } : {}),
      ...(end.frameBefore !== undefined ? { frame_before: end.frameBefore } : {}),
      ...(end.frameAfter !== undefined ? { frame_after: end.frameAfter } : {}),
      ...(end.target !== undefined ? { target: end.target } : {}),
      ...(end.frameScale !== undefined ? { frame_scale: end.frameScale } : {}),
    };
    for (const id of stateIdsOf(end.result)) this.#stateSteps.set(id, step.seq);
    this.#steps.push(record);
  }

  /**
   * Keeps a screenshot (JPEG bytes) out of memory; its name in the trace (`frames/<n>.jpg`), or
   * undefined when nothing is recorded. Past the cap the oldest frame goes.
   */
  async keepFrame(bytes: Uint8Array): Promise<string | undefined> {
    if (!this.recording) return undefined;
    const n = ++this.#lastFrame;
    const name = `frames/${n}.jpg`;
    await this.#options.spill.write(name, bytes);
    this.#frames.push(n);
    while (this.#frames.length > this.#maxFrames) {
      const oldest = this.#frames.shift()!;
      this.#droppedFrames++;
      await this.#options.spill.remove(`frames/${oldest}.jpg`);
    }
    return name;
  }

  /**
   * The trace file's entries, in order: the header, the steps, the events (the network log's
   * entries of the recorded time among them), then the frames still kept, read back one at a time.
   */
  async *entries(versions: TraceVersions, network: readonly NetworkEntry[] = []): AsyncGenerator<TraceEntry> {
    const encoder = new TextEncoder();
    const endedAt = this.#now();
    const startedAt = this.#startedAt ?? endedAt;
    const kept = new Set(this.#frames.map((n) => `frames/${n}.jpg`));
    // A frame dropped under the cap is named by no step: a reader never looks for it.
    const steps = [...this.#steps].sort((a, b) => a.seq - b.seq).map((step) => {
      const { frame_before, frame_after, target, frame_scale, ...rest } = step;
      const before = frame_before !== undefined && kept.has(frame_before) ? frame_before : undefined;
      return {
        ...rest,
        ...(before !== undefined ? { frame_before: before } : {}),
        ...(frame_after !== undefined && kept.has(frame_after) ? { frame_after } : {}),
        ...(before !== undefined && target !== undefined ? { target } : {}),
        ...(frame_scale !== undefined && (before !== undefined || (frame_after !== undefined && kept.has(frame_after)))
          ? { frame_scale }
          : {}),
      };
    });
    // Scrubbed again as they leave: a secret the session learnt after a line was recorded is hidden too.
    const scrub = this.#options.scrubber();
    const events = scrubStrings(this.#withNetwork(network, startedAt, endedAt), scrub);
    const header: TraceHeader = {
      format: TRACE_FORMAT,
      version: TRACE_VERSION,
      pagewire: versions.pagewire,
      protocol: versions.protocol,
      session_id: this.#options.sessionId,
      started_at: startedAt,
      ended_at: endedAt,
      steps: steps.length,
      events: events.length,
      frames: kept.size,
      dropped_frames: this.#droppedFrames,
      dropped_events: this.#droppedEvents,
      ...(this.#options.viewport ? { viewport: this.#options.viewport } : {}),
    };
    const lines = (records: readonly unknown[]) => encoder.encode(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    yield { name: 'trace.json', data: encoder.encode(JSON.stringify(header)) };
    yield { name: 'steps.jsonl', data: lines(scrubStrings(steps, scrub)) };
    yield { name: 'events.jsonl', data: lines(events) };
    for (const name of [...kept].sort((a, b) => frameNumber(a) - frameNumber(b))) {
      yield { name, data: await this.#options.spill.read(name) };
    }
  }

  /** Stops recording and removes the spilled frames (the session closed). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.stop();
    await this.#options.spill.dispose();
  }

  #onEvent(event: SessionEvent): void {
    // An act is a step of its own; its event would say the same again.
    if (event.kind === 'act') return;
    if (this.#events.length >= MAX_EVENTS) {
      this.#droppedEvents++;
      return;
    }
    const step = this.#open.size > 0 ? Math.max(...this.#open) : undefined;
    this.#events.push({
      seq: this.#events.length + 1,
      ...(step !== undefined ? { step } : {}),
      at: event.time,
      kind: event.kind,
      data: event.data,
    });
  }

  /**
   * The recorded events with the network log's entries of the recorded time merged in by time
   * (unless they came as events already), each placed in the step that ran when it began.
   */
  #withNetwork(network: readonly NetworkEntry[], startedAt: number, endedAt: number): TraceEvent[] {
    const hadNetwork = this.#events.some((event) => event.kind === 'network');
    const fromLog = hadNetwork ? [] : network.filter((entry) => entry.time >= startedAt && entry.time <= endedAt);
    if (fromLog.length === 0) return this.#events;
    const stepAt = (time: number) => this.#steps.findLast((step) => step.at <= time && time <= step.at + step.duration_ms)?.seq;
    const merged: Array<Omit<TraceEvent, 'seq'>> = [
      ...this.#events.map(({ seq: _seq, ...event }) => event),
      ...fromLog.map((entry) => {
        const step = stepAt(entry.time);
        return { ...(step !== undefined ? { step } : {}), at: entry.time, kind: 'network', data: entry };
      }),
    ];
    merged.sort((a, b) => a.at - b.at);
    return merged.map((event, i) => ({ seq: i + 1, ...event }));
  }
}

function frameNumber(name: string): number {
  return Number(FRAME_NAME.exec(name)?.[1] ?? 0);
}
