// session.create, session.list, session.close (PROTOCOL.md §4).
import { z } from 'zod';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { defineMethod, type AnyMethodDef } from '../define.ts';
import { idString } from './common.ts';

const createParams = z
  .object({
    name: z.string().min(1).max(128).optional(),
    viewport: z
      .object({ width: z.number().int().min(100).max(8192), height: z.number().int().min(100).max(8192) })
      .strict()
      .optional(),
    dialogs: z.enum(['hold', 'accept', 'dismiss']).optional(),
    user_agent: z.string().min(1).max(1024).optional(),
  })
  .strict();

export function sessionMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    defineMethod({
      name: 'session.create',
      summary: 'Create an isolated browsing context with one tab at about:blank (selected).',
      params: createParams,
      handler: async (params, call) => {
        const session = await registry.create(call.principal.id, {
          name: params.name ?? 'session',
          viewport: params.viewport,
          dialogs: params.dialogs ?? 'hold',
          userAgent: params.user_agent,
        });
        session.clients.add(call.connection.id);
        return { session_id: session.id, target_id: session.selectedTargetId };
      },
    }),
    defineMethod({
      name: 'session.list',
      summary: "List the caller's own sessions.",
      params: z.object({}).strict(),
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
      name: 'session.close',
      summary: 'Close a session and its tabs; interrupts a running operation first.',
      params: z.object({ session_id: idString }).strict(),
      handler: async (params, call) => {
        const session = registry.get(params.session_id, call.principal.id);
        await registry.close(session, 'closed_by_client');
        return { closed: true };
      },
    }),
  ];
}
