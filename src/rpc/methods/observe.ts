// observe (PROTOCOL.md §6): the accessibility tree with refs, the document's identity, and a new
// current state for the tab (observe/capture.ts), as the wire words it (observation.ts).
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { AnyMethodDef } from '../define.ts';
import { observe as observeMethod } from '../../wire/observation.ts';
import { sessionMethod } from './common.ts';
import { findForWire, observationPart, observeForWire } from './observation.ts';

export function observeMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...observeMethod,
      run: async (session, params, { signal }) => {
        if (params.cursor !== undefined) return observationPart(session, params.cursor, params.max_bytes);
        const tab = session.resolveTab(params.target_id);
        const frame = session.resolveFrame(tab, params.frame_id);
        if (params.find !== undefined) {
          return findForWire(session, tab, frame, {
            find: params.find,
            ...(params.find_role !== undefined ? { role: params.find_role } : {}),
            ...(params.max_bytes !== undefined ? { maxBytes: params.max_bytes } : {}),
            signal,
          });
        }
        return observeForWire(session, tab, frame, {
          ...(params.max_elements !== undefined ? { maxElements: params.max_elements } : {}),
          ...(params.include_text !== undefined ? { includeText: params.include_text } : {}),
          ...(params.include_boxes !== undefined ? { includeBoxes: params.include_boxes } : {}),
          ...(params.since !== undefined ? { since: params.since } : {}),
          ...(params.root_ref !== undefined ? { rootRef: params.root_ref } : {}),
          ...(params.max_bytes !== undefined ? { maxBytes: params.max_bytes } : {}),
          ...(params.format === 'markdown' ? { markdown: true } : {}),
          signal,
        });
      },
    }),
  ];
}
