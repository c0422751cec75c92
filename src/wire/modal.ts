// dialog.handle and file_chooser.resolve (PROTOCOL.md §8).
import { z } from 'zod';
import { DIALOG_TYPES } from './events.ts';
import { sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

export const dialogHandle = wireMethod({
  name: 'dialog.handle',
  summary: 'Accept or dismiss the JavaScript dialog the tab holds open.',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      accept: z.boolean(),
      prompt_text: z.string().max(100_000).optional(),
    })
    .strict(),
  result: z.object({ action: z.enum(['accepted', 'dismissed']), dialog_type: z.enum(DIALOG_TYPES), message: z.string() }),
});

export const fileChooserResolve = wireMethod({
  name: 'file_chooser.resolve',
  summary: 'Give files to the pending file chooser (paths under --uploads), or cancel it (no paths).',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      paths: z.array(z.string().min(1).max(4_096)).max(100).optional(),
    })
    .strict(),
  result: z.union([z.object({ uploaded_count: z.number().int().min(1) }), z.object({ cancelled: z.literal(true) })]),
});
