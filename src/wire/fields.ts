// Field schemas that many methods share: ids, refs and the URLs a client may open.
import { z } from 'zod';

export const idString = z.string().min(1).max(256);
export const sessionIdField = idString.optional().describe('Session id; omitted: the caller\'s "default" session');
export const targetIdField = idString.optional().describe('Tab id; omitted: the selected tab');
export const frameIdField = idString.optional().describe('Frame id; omitted: the selected frame of the tab');

export const refField = z.string().regex(/^@[1-9][0-9]{0,8}$/, 'a ref looks like @12');

/** Schemes a client may open: web pages and inert documents, never file:, chrome: or javascript:. */
export const navigableUrl = z
  .string()
  .max(8192)
  .refine((value) => {
    try {
      return ['http:', 'https:', 'about:', 'data:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http(s), about: or data: URL');

/** A method without params takes an empty object (or none). */
export const noParams = z.object({}).strict();
