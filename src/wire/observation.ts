// observe (PROTOCOL.md §6): its params, the Element every ref names, and the Observation (also an
// act's `fresh_state`).
import { z } from 'zod';
import { DIALOG_TYPES } from './events.ts';
import { frameIdField, idString, refField, sessionIdField, targetIdField } from './fields.ts';
import { MAX_BYTES_RANGE, MAX_FIND_WORDS } from './observe-bounds.ts';
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
    reason: z.string().optional().describe(
      'unavailable: why the frame could not be read; observed: what of it could not be read (its layout, for the observed frame)',
    ),
  })
  .meta({ id: 'ObservedFrame' });

export const pendingDialog = z
  .object({ type: z.enum(DIALOG_TYPES), message: z.string(), default_prompt: z.string().optional() })
  .meta({ id: 'PendingDialog' });

export const blocker = z
  .object({
    ref: z.string().optional().describe("The blocker's ref, when the observation gave it one"),
    role: z.string(),
    name: z.string(),
    dismiss_ref: z.string().optional().describe('The control inside the blocker that dismisses it'),
    covers: z.array(z.string()).describe('The refs it covers where a click on them would land'),
  })
  .meta({ id: 'Blocker' });

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
    markdown: z.string().optional().describe('With format "markdown": the main content as Markdown, refs inline (`[Download](@12)`)'),
    boxes: z
      .record(z.string(), z.tuple([z.number(), z.number(), z.number(), z.number()]))
      .optional()
      .describe("With include_boxes: ref → [x, y, width, height] in CSS px of the tab's viewport, for visible elements"),
    frames: z.array(observedFrame),
    truncated: z.boolean(),
    dialog: pendingDialog.optional(),
    blockers: z.array(blocker).optional().describe('What covers elements in view (a cookie banner, a dialog), when anything does'),
    diff: observationDiff.optional().describe('With since, when that state is still known'),
    matches: z.array(findMatch).optional().describe('With find: each match, in the order of `elements`'),
    next_cursor: z.string().optional().describe('Cut at max_bytes: observe {cursor} answers the next part'),
  })
  .meta({ id: 'Observation' });

/** How an observation is shaped: observe's own params, and act's `observe` for its fresh observation. */
export const observeShaping = {
  max_elements: z.number().int().min(1).max(500).optional().describe('Refs at most (default 150)'),
  include_text: z.boolean().optional().describe('Also return the visible page text'),
  root_ref: refField.optional().describe('Observe only the subtree of this element of the current state'),
  max_bytes: z
    .number()
    .int()
    .min(MAX_BYTES_RANGE.min)
    .max(MAX_BYTES_RANGE.max)
    .optional()
    .describe("The answer's JSON at most this many bytes; the rest by next_cursor"),
};

/** What a cursor's part does not take: it continues an observation as that was asked. */
const CURSOR_EXCLUDES = [
  'target_id',
  'frame_id',
  'since',
  'max_elements',
  'include_text',
  'include_boxes',
  'root_ref',
  'format',
  'find',
  'find_role',
] as const;

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
      include_boxes: z.boolean().optional().describe("Also return visible elements' boxes (CSS px)"),
      root_ref: observeShaping.root_ref,
      max_bytes: observeShaping.max_bytes,
      cursor: z.string().min(1).max(256).optional().describe("An observation's next_cursor: its next part, nothing else asked"),
      format: z
        .enum(['tree', 'markdown'])
        .optional()
        .describe('"markdown": the main content as Markdown in `markdown`, refs inline, and an empty tree (default "tree")'),
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
      const refuse = (key: string, message: string) => ctx.addIssue({ code: 'custom', path: [key], message });
      if (params.cursor !== undefined) {
        for (const key of CURSOR_EXCLUDES) {
          if (params[key] !== undefined) refuse(key, 'a cursor continues an observation as it was asked: give only cursor and max_bytes');
        }
        return;
      }
      if (params.find === undefined) {
        if (params.find_role !== undefined) refuse('find_role', 'find_role needs find');
        return;
      }
      for (const key of ['since', 'root_ref', 'include_text', 'include_boxes', 'format'] as const) {
        if (params[key] !== undefined) refuse(key, `${key} cannot be combined with find`);
      }
    }),
  result: observation,
});
