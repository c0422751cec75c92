// Running a call inside its session's queue, as every session method does.
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { isServerError, ServerError } from '../../errors.ts';
import type { CallContext } from '../context.ts';

function cancelled(signal: AbortSignal): ServerError {
  const reason = signal.reason;
  return isServerError(reason) ? reason : new ServerError('operation_cancelled', 'the call was cancelled');
}

export interface SessionCallOptions {
  /** Skip the session's queue (dialog.handle, cancel, session.close). */
  bypassQueue?: boolean;
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
  const run = async () => {
    if (options.bypassQueue) return task(session, session.closeSignal);
    // Withdrawn while it waited in the queue: dropped, nothing of it runs.
    if (withdrawn?.aborted) throw new ServerError('operation_cancelled', 'the call was withdrawn before it ran');
    const operation = session.beginOperation();
    // Withdrawn while running: stopped exactly as `cancel` stops the running call (this one).
    const stop = () => session.cancelRunning();
    withdrawn?.addEventListener('abort', stop, { once: true });
    try {
      if (operation.signal.aborted) throw cancelled(operation.signal);
      return await task(session, operation.signal);
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
