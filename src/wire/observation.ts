// observe (PROTOCOL.md §6): its params, the Element every ref names, and the Observation (also an
// act's `fresh_state`).
import { z } from 'zod';
import { DIALOG_TYPES } from './events.ts';
import { frameIdField, idString, refField, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

export const DEFAULT_MAX_ELEMENTS = 150;

/** A node that carries a ref. States are present only when they apply. */
export const element = z
  .object({
    ref: z.string(),
    role: z.string(),
    name: z.string(),
    frame_id: z.string(),
    visible: z.boolean(),
    in_viewport: z.boolean(),
    checked: z.union([z.boolean(), z.literal('mixed')]).optional(),
    selected: z.boolean().optional(),
    expanded: z.boolean().optional(),
    disabled: z.boolean().optional(),
    focused: z.boolean().optional(),
    required: z.boolean().optional(),
    has_value: z.boolean().optional().describe('Whether the field holds a value (the value itself is never sent)'),
    level: z.number().int().optional(),
    href: z.string().optional(),
  })
  .meta({ id: 'Element' });

export const observedFrame = z
  .object({
    frame_id: z.string(),
    url: z.string(),
    status: z.enum(['observed', 'unavailable']),
    reason: z.string().optional().describe('unavailable: why the frame could not be read'),
  })
  .meta({ id: 'ObservedFrame' });

export const pendingDialog = z
  .object({ type: z.enum(DIALOG_TYPES), message: z.string(), default_prompt: z.string().optional() })
  .meta({ id: 'PendingDialog' });

export const observationDiff = z
  .object({
    base: z.string().describe('The state the diff is against (`since`)'),
    added: z.array(element),
    changed: z.array(element),
    removed: z.array(z.string()),
    text_changed: z.boolean(),
  })
  .meta({ id: 'ObservationDiff' });

/** One element a find matched (PROTOCOL.md §6 "find"). */
export const findMatch = z
  .object({
    ref: z.string(),
    path: z.array(z.string()).describe('The landmarks and headings it lies under, outermost first'),
    text: z.string().describe('Its nearby text, else its own text'),
  })
  .meta({ id: 'FindMatch' });

/** Words a find takes at most, and the matches it answers at most. */
export const MAX_FIND_WORDS = 16;
export const MAX_FIND_MATCHES = 50;

export const observation = z
  .object({
    state_id: z.string(),
    session_id: z.string(),
    target_id: z.string(),
    frame_id: z.string(),
    document: z
      .object({
        frame_id: z.string(),
        loader_id: z.string(),
        url: z.string(),
        ready_state: z
          .enum(['loading', 'interactive', 'complete'])
          .describe("Where the document's loading stands: interactive after DOMContentLoaded, complete after its load event"),
      })
      .describe('The identity of the observed document'),
    url: z.string(),
    title: z.string(),
    tree: z.string().describe('The accessibility tree as indented text, one node a line: role "name" [state] ref'),
    elements: z.array(element),
    text: z.string().optional().describe('With include_text: the visible page text'),
    boxes: z
      .record(z.string(), z.tuple([z.number(), z.number(), z.number(), z.number()]))
      .optional()
      .describe("With include_boxes: ref → [x, y, width, height] in CSS px of the tab's viewport, for visible elements"),
    frames: z.array(observedFrame),
    truncated: z.boolean(),
    dialog: pendingDialog.optional(),
    diff: observationDiff.optional().describe('With since, when that state is still known'),
    matches: z.array(findMatch).optional().describe('With find: each match, in the order of `elements`'),
  })
  .meta({ id: 'Observation' });

/** How an observation is shaped: observe's own params, and act's `observe` for its fresh observation. */
export const observeShaping = {
  max_elements: z.number().int().min(1).max(500).optional().describe('Refs at most (default 150)'),
  include_text: z.boolean().optional().describe('Also return the visible page text'),
  root_ref: refField.optional().describe('Observe only the subtree of this element of the current state'),
};

export const observe = wireMethod({
  name: 'observe',
  summary: 'Observe a tab: accessibility tree with refs, document identity, and a new state id.',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      frame_id: frameIdField,
      since: idString.optional().describe('Also return a diff against this earlier state of the tab'),
      max_elements: observeShaping.max_elements,
      include_text: observeShaping.include_text,
      include_boxes: z.boolean().optional().describe("Also return each visible element's box (`boxes`), in CSS px of the tab's viewport"),
      root_ref: observeShaping.root_ref,
      find: z
        .string()
        .max(200)
        .refine((text) => text.trim() !== '', 'find needs at least one word')
        .refine((text) => text.trim().split(/\s+/).length <= MAX_FIND_WORDS, `find takes at most ${MAX_FIND_WORDS} words`)
        .optional()
        .describe('Words to match, in the whole page'),
      find_role: z.string().max(64).optional(),
    })
    .strict()
    .superRefine((params, ctx) => {
      if (params.find === undefined) {
        if (params.find_role !== undefined) ctx.addIssue({ code: 'custom', path: ['find_role'], message: 'find_role needs find' });
        return;
      }
      for (const key of ['since', 'root_ref', 'include_text', 'include_boxes'] as const) {
        if (params[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `${key} cannot be combined with find` });
      }
    }),
  result: observation,
});
