// screenshot (PROTOCOL.md §10).
import { z } from 'zod';
import { idString, refField, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

export const imageMime = z.enum(['image/png', 'image/jpeg']);

export const screenshot = wireMethod({
  name: 'screenshot',
  summary: 'Capture the viewport, the whole page or one element of a tab (PNG or JPEG), with password inputs masked.',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      full_page: z.boolean().optional().describe('The whole document (up to 16384 px a side) instead of the viewport'),
      ref: refField.optional().describe("Only this element: a ref of the tab's current state, or of state_id"),
      state_id: idString.optional().describe('The observation that issued `ref` (default: the tab\'s current state)'),
      format: z.enum(['png', 'jpeg']).optional().describe('Image format (default png)'),
      quality: z.number().int().min(0).max(100).optional().describe('JPEG quality 0–100 (format "jpeg" only)'),
    })
    .strict()
    .superRefine((params, ctx) => {
      if (params.quality !== undefined && params.format !== 'jpeg') {
        ctx.addIssue({ code: 'custom', path: ['quality'], message: 'quality applies to format "jpeg" only' });
      }
      if (params.full_page === true && params.ref !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['ref'], message: 'give either full_page or ref, not both' });
      }
      if (params.state_id !== undefined && params.ref === undefined) {
        ctx.addIssue({ code: 'custom', path: ['state_id'], message: 'state_id only says where ref comes from: give ref too' });
      }
    }),
  result: z.object({
    mime: imageMime,
    data: z.string().describe('The image, base64'),
    width: z.number().describe('px: the image\'s own size (the clip\'s, if the image could not be read)'),
    height: z.number().describe('px, likewise'),
  }),
});
