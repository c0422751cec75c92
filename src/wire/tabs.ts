// tabs.* and frames.* (PROTOCOL.md §5).
import { z } from 'zod';
import { idString, navigableUrl, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';
import { observation, observeShaping } from './observation.ts';

export const tabSummary = z
  .object({
    target_id: z.string(),
    url: z.string(),
    title: z.string(),
    selected: z.boolean(),
    opener_id: z.string().optional().describe('The tab that opened this one (a popup)'),
  })
  .meta({ id: 'Tab' });

export const tabsList = wireMethod({
  name: 'tabs.list',
  summary: "The session's tabs with URL (redacted), title, selection and opener.",
  params: z.object({ session_id: sessionIdField }).strict(),
  result: z.object({ tabs: z.array(tabSummary) }),
});

export const tabsNew = wireMethod({
  name: 'tabs.new',
  summary: 'Open a tab (about:blank, or url up to its DOMContentLoaded); selected unless select is false; with observe, observed.',
  params: z
    .object({
      session_id: sessionIdField,
      url: navigableUrl.optional(),
      select: z.boolean().optional(),
      observe: z.boolean().optional().describe('Also answer with the observation of the new page'),
      max_bytes: observeShaping.max_bytes,
    })
    .strict(),
  result: z.object({
    target_id: z.string(),
    error_text: z.string().optional().describe('The tab is open but url did not load (a network error, or no DOMContentLoaded in time)'),
    observation: observation.optional().describe('With observe: the new tab observed, its first current state'),
  }),
});

export const tabsSelect = wireMethod({
  name: 'tabs.select',
  summary: 'Make a tab the selected one.',
  params: z.object({ session_id: sessionIdField, target_id: idString }).strict(),
  result: z.object({ target_id: z.string() }),
});

export const tabsClose = wireMethod({
  name: 'tabs.close',
  summary: 'Close a tab; the last tab of a session cannot be closed (last_tab).',
  params: z.object({ session_id: sessionIdField, target_id: idString }).strict(),
  result: z.object({ closed: z.literal(true) }),
});

export const frameSummary = z
  .object({
    frame_id: z.string(),
    parent_frame_id: z.string().nullable().describe('null for the main frame'),
    url: z.string(),
    name: z.string(),
    cross_process: z.boolean(),
  })
  .meta({ id: 'Frame' });

export const framesList = wireMethod({
  name: 'frames.list',
  summary: 'The frames of a tab in document order, main frame first.',
  params: z.object({ session_id: sessionIdField, target_id: targetIdField }).strict(),
  result: z.object({ frames: z.array(frameSummary) }),
});

export const framesSelect = wireMethod({
  name: 'frames.select',
  summary: 'Make a frame the selected frame of its tab.',
  params: z.object({ session_id: sessionIdField, target_id: targetIdField, frame_id: idString }).strict(),
  result: z.object({ frame_id: z.string() }),
});
