// The live view (PROTOCOL.md §13): screencast.start, screencast.stop and the data of a
// `screencast` event.
import { z } from 'zod';
import { sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

export const screencastEventData = z
  .object({
    mime: z.literal('image/jpeg'),
    data: z.string().describe('The frame, base64 JPEG (password inputs masked)'),
    width: z.number().int().min(1).describe('px of the image'),
    height: z.number().int().min(1).describe('px of the image'),
    timestamp: z.number().describe('Epoch ms at which Chromium painted the frame'),
    scale: z.number().gt(0).describe('Image px per CSS px of the viewport: a point (x, y) of the image is (x / scale, y / scale) for act'),
  })
  .meta({ id: 'ScreencastEventData' });

export const screencastStart = wireMethod({
  name: 'screencast.start',
  summary:
    'Stream a tab to this connection as `screencast` events (JPEG, password inputs masked) until screencast.stop or the connection closes; a slow reader gets fewer frames, never a queue.',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      max_fps: z.number().int().min(1).max(30).optional().describe('At most this many frames a second (default 10)'),
      quality: z.number().int().min(1).max(100).optional().describe('JPEG quality (default 60)'),
      max_width: z.number().int().min(16).max(4096).optional().describe('Scale frames down to at most this width in px (default 1280)'),
    })
    .strict(),
  result: z.object({
    subscription_id: z.string().describe("The `subscription_id` of this screencast's `screencast` events"),
    target_id: z.string(),
  }),
});

export const screencastStop = wireMethod({
  name: 'screencast.stop',
  summary: "End this connection's screencast of a tab.",
  params: z.object({ session_id: sessionIdField, target_id: targetIdField }).strict(),
  result: z.object({ stopped: z.boolean().describe('false when this connection had no screencast of the tab') }),
});
