// Running a call inside its session's queue, as every session method does.
import type { z } from 'zod';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { isServerError, ServerError } from '../../errors.ts';
import type { CallContext } from '../context.ts';
import { defineMethod, type MethodDef } from '../define.ts';
import type { WireMethod } from '../../wire/method.ts';
import { recorded, type RecordedCall } from '../trace-steps.ts';

function cancelled(signal: AbortSignal): ServerError {
  const reason = signal.reason;
  return isServerError(reason) ? reason : new ServerError('operation_cancelled', 'the call was cancelled');
}

export interface SessionCallOptions {
  /** Skip the session's queue (dialog.handle, cancel, session.close). */
  bypassQueue?: boolean;
  /** The call as the session's trace records it (PROTOCOL.md §16); absent: it is no step of a trace. */
  step?: RecordedCall;
}

/**
 * Resolves the session (ownership checked), records the caller as one of its clients, and runs
 * `task` in the session's queue so calls on one session never interleave.
 */
export async function onSession<T>(
  registry: SessionRegistry,
  call: CallContext,
  sessionId: string | undefined,
  task: (session: Session, signal: AbortSignal) => Promise<T>,
  options: SessionCallOptions = {},
): Promise<T> {
  const session = await registry.resolve(call.principal.id, sessionId);
  session.clients.add(call.connection.id);
  const withdrawn = call.signal;
  const step = options.step;
  const perform = (signal: AbortSignal) => (step ? recorded(session, step, () => task(session, signal)) : task(session, signal));
  const run = async () => {
    if (options.bypassQueue) return perform(session.closeSignal);
    // Withdrawn while it waited in the queue: dropped, nothing of it runs.
    if (withdrawn?.aborted) throw new ServerError('operation_cancelled', 'the call was withdrawn before it ran');
    const operation = session.beginOperation();
    // Withdrawn while running: stopped exactly as `cancel` stops the running call (this one).
    const stop = () => session.cancelRunning();
    withdrawn?.addEventListener('abort', stop, { once: true });
    try {
      if (operation.signal.aborted) throw cancelled(operation.signal);
      return await perform(operation.signal);
    } catch (error) {
      // Whatever a cancelled call was doing when it stopped, the caller hears "cancelled".
      if (operation.signal.aborted && !isServerError(error, 'operation_cancelled')) throw cancelled(operation.signal);
      throw error;
    } finally {
      withdrawn?.removeEventListener('abort', stop);
      operation.end();
      session.lastUsedAt = Date.now();
    }
  };
  session.lastUsedAt = Date.now();
  return options.bypassQueue ? run() : session.queue.run(run);
}

/** What a session method's `run` is handed besides its session and params. */
export interface SessionRun {
  call: CallContext;
  /** Aborted when the call is cancelled (or, for a call that bypasses the queue, the session closes). */
  signal: AbortSignal;
}

/** A method whose params name a session: its wire description, and what it does in that session. */
export interface SessionMethodDef<P extends z.ZodType, R extends z.ZodType> extends WireMethod<string, P, R> {
  /** Skip the session's queue (see SessionCallOptions). */
  readonly bypassQueue?: boolean;
  /**
   * false for a method that only watches the session (events, screencast, the trace itself): a
   * trace records what was done, not who looked (PROTOCOL.md §16).
   */
  readonly recorded?: boolean;
  readonly run: (session: Session, params: z.infer<P>, context: SessionRun) => Promise<z.input<R>>;
}

/** A method that runs `run` in its session's queue (or beside it, with `bypassQueue`): see onSession. */
export function sessionMethod<P extends z.ZodType<{ session_id?: string | undefined }>, R extends z.ZodType>(
  registry: SessionRegistry,
  def: SessionMethodDef<P, R>,
): MethodDef<P, R> {
  const { run, bypassQueue, recorded: isRecorded, ...wire } = def;
  return defineMethod({
    ...wire,
    handler: (params, call) =>
      onSession(registry, call, params.session_id, (session, signal) => run(session, params, { call, signal }), {
        ...(bypassQueue ? { bypassQueue } : {}),
        ...(isRecorded !== false ? { step: { method: wire.name, params: params as Record<string, unknown>, frames: false } } : {}),
      }),
  });
}

/**
 * Refuses a method that delivers events over its caller's connection when that connection ends
 * with its HTTP request (POST /rpc): a subscription there could never deliver anything.
 */
export function requireLastingConnection(call: CallContext, method: string): void {
  if (!call.connection.requestScoped) return;
  throw new ServerError(
    'invalid_request',
    `${method} delivers events over a connection that lasts (a WebSocket); over POST /rpc read events with events.poll`,
  );
}
