// network.list (PROTOCOL.md §13): the requests of a session's tabs and workers, bounded per tab.
import { z } from 'zod';
import { networkEntry } from './events.ts';
import { idString, sessionIdField } from './fields.ts';
import { wireMethod } from './method.ts';

export const networkList = wireMethod({
  name: 'network.list',
  summary: "The session's network log: method, redacted URL, status, type, bytes, duration and failure of each request.",
  params: z
    .object({
      session_id: sessionIdField,
      target_id: idString.optional().describe("One tab's requests; omitted: every tab and worker of the session"),
      since: z.number().int().min(0).optional().describe('Only entries with a higher seq (0: all kept)'),
    })
    .strict(),
  result: z.object({
    entries: z.array(networkEntry).describe('Oldest first'),
    last_seq: z.number().int().min(0).describe('The newest seq of the session (pass it as since next time)'),
    dropped: z.number().int().min(0).describe('Entries after since that were no longer kept (the oldest go first)'),
  }),
});
