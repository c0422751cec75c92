// wait (PROTOCOL.md §7 "wait"): act's wait_for as a call of its own, answered with an observation.
import { z } from 'zod';
import { DEFAULT_TIMEOUT_MS, type waitFor } from './act.ts';
import { frameIdField, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';
import { observation, observeShaping } from './observation.ts';

export const WAIT_STATUSES = ['met', 'condition_not_met'] as const;

const CONDITION_KINDS = ['text', 'url', 'selector'] as const;

export const wait = wireMethod({
  name: 'wait',
  summary: "Wait without acting for text, a URL or a selector in a state (wait_for's), then observe.",
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      frame_id: frameIdField,
      // One flat object (not wait_for's union), so that every door shows the fields plainly.
      text: z.string().min(1).max(10_000).optional().describe('Text of the page (not a placeholder or a name)'),
      url: z.string().min(1).max(8_192).optional().describe("A glob for the frame's URL"),
      selector: z.string().min(1).max(10_000).optional(),
      state: z.enum(['visible', 'hidden', 'attached', 'detached']).optional().describe('Default visible'),
      timeout_ms: z.number().int().min(0).max(60_000).optional().describe(`0 or omitted: ${DEFAULT_TIMEOUT_MS}`),
      max_bytes: observeShaping.max_bytes,
    })
    .strict()
    .superRefine((params, ctx) => {
      const given = CONDITION_KINDS.filter((kind) => params[kind] !== undefined);
      if (given.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: [given[1] ?? 'text'],
          message: `give exactly one of text, url or selector${given.length > 1 ? ` (found ${given.join(', ')})` : ''}`,
        });
      }
    }),
  result: z
    .object({
      status: z.enum(WAIT_STATUSES),
      observation: observation.describe("Taken once the wait ended, met or not: the tab's new current state"),
    })
    .meta({ id: 'WaitResult' }),
});

/** The condition of valid wait params, as act's wait_for holds it. */
export function waitConditionOf(params: z.infer<typeof wait.params>): z.infer<typeof waitFor> {
  const state = params.state === undefined ? {} : { state: params.state };
  if (params.text !== undefined) return { text: params.text, ...state };
  if (params.url !== undefined) return { url: params.url, ...state };
  return { selector: params.selector!, ...state };
}
