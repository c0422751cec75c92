// session.create, session.list, session.close (PROTOCOL.md §4).
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { type AnyMethodDef, defineMethod } from '../define.ts';
import { sessionClose, sessionCreate, sessionList } from '../wire/sessions.ts';

export function sessionMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    defineMethod({
      ...sessionCreate,
      handler: async (params, call) => {
        const session = await registry.create(call.principal.id, {
          name: params.name ?? 'session',
          viewport: params.viewport,
          dialogs: params.dialogs ?? 'hold',
          userAgent: params.user_agent,
        });
        session.clients.add(call.connection.id);
        const targetId = session.selectedTargetId;
        // Only if the first tab closed before this answer (its page closed it, or it crashed).
        if (targetId === undefined) throw new ServerError('target_not_found', `the first tab of session ${session.id} closed at once`);
        return { session_id: session.id, target_id: targetId };
      },
    }),
    defineMethod({
      ...sessionList,
      handler: async (_params, call) => ({
        sessions: registry.list(call.principal.id).map((session) => ({
          session_id: session.id,
          name: session.name,
          tabs: session.tabs().length,
          created_at: session.createdAt,
          clients: session.clients.size,
        })),
      }),
    }),
    defineMethod({
      ...sessionClose,
      handler: async (params, call) => {
        const session = registry.get(params.session_id, call.principal.id);
        await registry.close(session, 'closed_by_client');
        return { closed: true as const };
      },
    }),
  ];
}
