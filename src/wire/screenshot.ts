// screenshot (PROTOCOL.md §10).
import { z } from 'zod';
import { idString, refField, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

export const imageMime = z.enum(['image/png', 'image/jpeg']);

export const screenshot = wireMethod({
  name: 'screenshot',
  summary:
    'Capture the viewport, the whole page or one element of a tab (PNG or JPEG), with password inputs masked; annotate draws the refs of an observation onto it.',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      full_page: z.boolean().optional().describe('The whole document (up to 16384 px a side) instead of the viewport'),
      ref: refField.optional().describe("Only this element: a ref of the tab's current state, or of state_id"),
      state_id: idString.optional().describe("The observation that issued `ref` (default: the tab's current state)"),
      format: z.enum(['png', 'jpeg']).optional().describe('Image format (default png)'),
      quality: z.number().int().min(0).max(100).optional().describe('JPEG quality 0–100 (format "jpeg" only)'),
      max_side: z.number().int().min(16).max(16_384).optional().describe('Scale down so the long side is at most this many px'),
      max_pixels: z.number().int().min(256).max(268_435_456).optional().describe('Scale down so the image has at most this many pixels'),
      annotate: z.boolean().optional().describe('Label the refs (@12) on it'),
      refs: z.array(refField).min(1).max(10_000).optional().describe('With annotate: only these refs'),
    })
    .strict()
    .superRefine((params, ctx) => {
      if (params.quality !== undefined && params.format !== 'jpeg') {
        ctx.addIssue({ code: 'custom', path: ['quality'], message: 'quality applies to format "jpeg" only' });
      }
      if (params.full_page === true && params.ref !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['ref'], message: 'give either full_page or ref, not both' });
      }
      if (params.state_id !== undefined && params.ref === undefined && params.annotate !== true) {
        ctx.addIssue({
          code: 'custom',
          path: ['state_id'],
          message: 'state_id only says where ref comes from, or whose refs annotate draws: give ref or annotate too',
        });
      }
      if (params.refs !== undefined && params.annotate !== true) {
        ctx.addIssue({ code: 'custom', path: ['refs'], message: 'refs says which refs annotate draws: give annotate: true too' });
      }
    }),
  result: z.object({
    mime: imageMime,
    data: z.string().describe('The image, base64'),
    width: z.number().describe("px: the image's own size (the clip's, if the image could not be read)"),
    height: z.number().describe('px, likewise'),
    scale: z.number().gt(0).lt(1).optional().describe('Image px per CSS px, when max_side or max_pixels scaled the capture down'),
    state_id: idString.optional().describe('With annotate: the observation whose refs were drawn'),
    not_drawn: z.array(refField).optional().describe(
      'With annotate: the refs asked for but not drawn (gone, hidden, or outside the image)',
    ),
  }),
});
