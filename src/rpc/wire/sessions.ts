// session.create, session.list, session.close (PROTOCOL.md §4).
import { z } from 'zod';
import { idString, noParams } from './fields.ts';
import { wireMethod } from './method.ts';

export const sessionCreate = wireMethod({
  name: 'session.create',
  summary: 'Create an isolated browsing context with one tab at about:blank (selected).',
  params: z
    .object({
      name: z.string().min(1).max(128).optional(),
      viewport: z
        .object({ width: z.number().int().min(100).max(8192), height: z.number().int().min(100).max(8192) })
        .strict()
        .optional(),
      dialogs: z.enum(['hold', 'accept', 'dismiss']).optional(),
      user_agent: z.string().min(1).max(1024).optional(),
    })
    .strict(),
  result: z.object({ session_id: z.string(), target_id: z.string().describe('The first tab') }),
});

export const sessionSummary = z
  .object({
    session_id: z.string(),
    name: z.string(),
    tabs: z.number().int().describe('Open tabs'),
    created_at: z.number().describe('Epoch ms'),
    clients: z.number().int().describe('Connections that have used the session'),
  })
  .meta({ id: 'SessionSummary' });

export const sessionList = wireMethod({
  name: 'session.list',
  summary: "List the caller's own sessions.",
  params: noParams,
  result: z.object({ sessions: z.array(sessionSummary) }),
});

export const sessionClose = wireMethod({
  name: 'session.close',
  summary: 'Close a session and its tabs; interrupts a running operation first.',
  params: z.object({ session_id: idString }).strict(),
  result: z.object({ closed: z.literal(true) }),
});
