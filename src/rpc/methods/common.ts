// Pieces every method shares: field schemas, and running a call inside its session's queue.
import { z } from 'zod';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import type { CallContext } from '../context.ts';

export const idString = z.string().min(1).max(256);
export const sessionIdField = idString.optional().describe('Session id; omitted: the caller\'s "default" session');
export const targetIdField = idString.optional().describe('Tab id; omitted: the selected tab');
export const frameIdField = idString.optional().describe('Frame id; omitted: the selected frame of the tab');

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
  task: (session: Session) => Promise<T>,
  options: SessionCallOptions = {},
): Promise<T> {
  const session = await registry.resolve(call.principal.id, sessionId);
  session.clients.add(call.connection.id);
  const run = async () => {
    try {
      return await task(session);
    } finally {
      session.lastUsedAt = Date.now();
    }
  };
  session.lastUsedAt = Date.now();
  return options.bypassQueue ? run() : session.queue.run(run);
}
