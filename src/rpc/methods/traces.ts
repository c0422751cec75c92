// trace.start, trace.stop, trace.export (PROTOCOL.md §16): the session's recorder
// (sessions/trace-recorder.ts) turned on and off, and what it holds written as one zip in the
// session's downloads folder (TraceFileWriter, src/runtime/trace-files.ts: this layer does no file work).
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { TraceEntry } from '../../sessions/trace-recorder.ts';
import { PROTOCOL_VERSION, VERSION } from '../../version.ts';
import { traceExport, traceStart, traceStop } from '../../wire/traces.ts';
import type { AnyMethodDef } from '../define.ts';
import { sessionMethod } from './common.ts';

/** Where trace files are written: a new file of the session's downloads folder, readable later by its principal. */
export interface TraceFileWriter {
  saveTrace(sessionId: string, principalId: string, entries: AsyncIterable<TraceEntry>): Promise<{ path: string; size: number }>;
}

export function traceMethods(registry: SessionRegistry, files: TraceFileWriter): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...traceStart,
      recorded: false,
      // Recording starts now, even while a call runs: that call is not a step, the next one is.
      bypassQueue: true,
      run: async (session) => {
        session.trace.start();
        return { recording: true as const };
      },
    }),
    sessionMethod(registry, {
      ...traceStop,
      recorded: false,
      bypassQueue: true,
      run: async (session) => {
        session.trace.stop();
        return { recording: false as const, steps: session.trace.steps };
      },
    }),
    sessionMethod(registry, {
      ...traceExport,
      recorded: false,
      // In the queue: a running act finishes (and is recorded whole) before the file is written.
      run: async (session, _params, { call }) => {
        const trace = session.trace;
        if (!trace.started) {
          throw new ServerError(
            'invalid_request',
            `nothing is recorded in session ${session.id}: trace.start first (or session.create {trace: true})`,
          );
        }
        const network = session.traffic.recording ? session.traffic.log.list().entries : [];
        const saved = await files.saveTrace(
          session.id,
          call.principal.id,
          trace.entries({ pagewire: VERSION, protocol: PROTOCOL_VERSION }, network),
        );
        return { path: saved.path, size: saved.size, steps: trace.steps, frames: trace.frames, dropped_frames: trace.droppedFrames };
      },
    }),
  ];
}
