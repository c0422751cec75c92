// session.create, session.list, session.close (PROTOCOL.md §4).
import { z } from 'zod';
import { idString, noParams, sessionIdField } from './fields.ts';
import { wireMethod } from './method.ts';

/** A domain pattern (PROTOCOL.md §13): a host with `*` wildcards, optionally a scheme and a port. */
export const domainPattern = z.string().min(1).max(300);

const cookieText = z.string().max(16_384);

/** One cookie as Playwright's storageState writes it (`expires`: epoch seconds, -1 for a session cookie). */
export const storageCookie = z
  .object({
    name: cookieText,
    value: cookieText,
    domain: z.string().min(1).max(1_024),
    path: z.string().min(1).max(4_096),
    expires: z.number(),
    httpOnly: z.boolean(),
    secure: z.boolean(),
    sameSite: z.enum(['Strict', 'Lax', 'None']),
  })
  .meta({ id: 'StorageCookie' });

export const storageOrigin = z
  .object({
    origin: z.string().min(1).max(2_048),
    localStorage: z.array(z.object({ name: z.string().max(1_048_576), value: z.string().max(1_048_576) })).max(10_000),
  })
  .meta({ id: 'StorageOrigin' });

/** Cookies and per-origin localStorage in Playwright's storageState shape (its camelCase field names kept). */
export const storageState = z
  .object({ cookies: z.array(storageCookie).max(10_000), origins: z.array(storageOrigin).max(1_000) })
  .meta({ id: 'StorageState' });

/**
 * What session.create accepts: a Playwright file as it is. Fields Playwright may add (`partitionKey`,
 * …) are ignored rather than refused; a cookie without `sameSite` is `Lax`, without `expires` a
 * session cookie.
 */
const storageStateInput = z.object({
  cookies: z
    .array(storageCookie.partial({ expires: true, httpOnly: true, secure: true, sameSite: true, path: true }))
    .max(10_000)
    .default([]),
  origins: z.array(storageOrigin).max(1_000).default([]),
});

/** The id of the endpoint a session's browser is (PROTOCOL.md §1); absent on a launched browser. */
const endpointId = z.string().describe("The id of the endpoint the session's browser is (e1, c1…; server.info endpoints)");

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
      allow_domains: z.array(domainPattern).min(1).max(100).optional().describe("Hosts it may reach (narrows the server's policy)"),
      block_domains: z.array(domainPattern).min(1).max(100).optional().describe('Hosts it never reaches'),
      block_private_network: z.boolean().optional().describe('true: refuse loopback and private addresses'),
      trace: z.boolean().optional(),
      storage_state: storageStateInput.optional().describe("Cookies and localStorage to start from (Playwright's storageState)"),
      endpoint: z
        .string()
        .min(1)
        .max(2_048)
        .optional()
        .describe("A browser's CDP endpoint URL to run in (ws://… or http://host:port); only one the server's --allow-endpoint allows"),
    })
    .strict(),
  result: z.object({
    session_id: z.string(),
    target_id: z.string().describe('The first tab'),
    endpoint: endpointId.optional(),
  }),
});

export const sessionStorageState = wireMethod({
  name: 'session.storage_state',
  summary: "The session's cookies and per-origin localStorage, in Playwright's storageState shape.",
  params: z.object({ session_id: sessionIdField }).strict(),
  result: storageState,
});

export const sessionSummary = z
  .object({
    session_id: z.string(),
    name: z.string(),
    tabs: z.number().int().describe('Open tabs'),
    created_at: z.number().describe('Epoch ms'),
    clients: z.number().int().describe('Connections that have used the session'),
    endpoint: endpointId.optional(),
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
