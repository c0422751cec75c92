// trace.start, trace.stop, trace.export (PROTOCOL.md §16), and the trace file's header and lines.
import { z } from 'zod';
import { sessionIdField } from './fields.ts';
import { wireMethod } from './method.ts';

/** The `format` of a trace file's header: a reader refuses any other. */
export const TRACE_FORMAT = 'pagewire-trace';
/** The header's `version`: what a reader of this version knows how to read. */
export const TRACE_VERSION = 1;

export const traceStart = wireMethod({
  name: 'trace.start',
  summary: 'Record every call on the session, with screenshots before and after each act, until trace.stop.',
  params: z.object({ session_id: sessionIdField }).strict(),
  result: z.object({ recording: z.literal(true) }),
});

export const traceStop = wireMethod({
  name: 'trace.stop',
  summary: 'Stop recording; what was recorded is kept for trace.export.',
  params: z.object({ session_id: sessionIdField }).strict(),
  result: z.object({ recording: z.literal(false), steps: z.number().int().min(0).describe('Steps recorded') }),
});

export const traceExport = wireMethod({
  name: 'trace.export',
  summary: "Write what was recorded as one trace file (a zip) in the session's downloads folder.",
  params: z.object({ session_id: sessionIdField }).strict(),
  result: z.object({
    path: z.string().describe("The file's absolute path, in the session's downloads folder"),
    size: z.number().int().min(0).describe('Its length in bytes'),
    steps: z.number().int().min(0).describe('Steps in it'),
    frames: z.number().int().min(0).describe('Screenshots in it'),
    dropped_frames: z.number().int().min(0).describe('Screenshots dropped under the per-session cap (the oldest)'),
  }),
});

const box = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

/** `trace.json`, the first entry of a trace file. */
export const traceHeader = z
  .object({
    format: z.literal(TRACE_FORMAT),
    version: z.literal(TRACE_VERSION),
    pagewire: z.string(),
    protocol: z.string(),
    session_id: z.string(),
    started_at: z.number(),
    ended_at: z.number(),
    steps: z.number().int().min(0),
    events: z.number().int().min(0),
    frames: z.number().int().min(0),
    dropped_frames: z.number().int().min(0),
    dropped_events: z.number().int().min(0),
    viewport: z.object({ width: z.number(), height: z.number() }).optional(),
  })
  .meta({ id: 'TraceHeader' });

/** One line of `steps.jsonl`: a call on the session, as it was sent and answered (redacted). */
export const traceStep = z
  .object({
    seq: z.number().int().min(1),
    method: z.string(),
    tab_id: z.string().optional(),
    at: z.number(),
    duration_ms: z.number().min(0),
    params: z.record(z.string(), z.unknown()),
    result: z.unknown().optional(),
    error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
    acted_on: z.number().int().min(1).optional(),
    frame_before: z.string().optional(),
    frame_after: z.string().optional(),
    target: z.object({ ref: z.string(), box }).optional(),
    frame_scale: z.number().optional(),
  })
  .meta({ id: 'TraceStep' });

/** One line of `events.jsonl`: a session event (or network entry) while recording. */
export const traceEvent = z
  .object({
    seq: z.number().int().min(1),
    step: z.number().int().min(1).optional(),
    at: z.number(),
    kind: z.string(),
    data: z.unknown(),
  })
  .meta({ id: 'TraceEvent' });
