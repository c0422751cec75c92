// The one wording of an observation for the wire (PROTOCOL.md §6): observe, wait and tabs.new
// answer with it, and act's fresh_state is it too. What is observed, and the state it issues, is
// the observe layer's (observe/capture.ts).
import type { FrameRecord } from '../../browser/frame-tree.ts';
import type { Tab } from '../../browser/tab.ts';
import {
  type CapturedObservation,
  captureFind,
  captureObservation,
  type CaptureOptions,
  type FindCaptureOptions,
} from '../../observe/capture.ts';
import type { Session } from '../../sessions/session.ts';
import { redactUrl } from '../../util/redact.ts';
import type { Observation } from '../../wire/index.ts';

/** What the caller asked to see beyond the tree and the elements. */
export interface ObservationShape {
  includeText?: boolean;
  includeBoxes?: boolean;
}

/** `captured`, an observation of a tab of session `sessionId`, as the wire words it. */
export function wireObservation(sessionId: string, captured: CapturedObservation, shape: ObservationShape = {}): Observation {
  const { snapshot, state, frameId } = captured;
  return {
    state_id: state.stateId,
    session_id: sessionId,
    target_id: state.targetId,
    frame_id: frameId,
    document: { frame_id: frameId, loader_id: captured.loaderId, url: redactUrl(captured.url), ready_state: captured.readyState },
    url: redactUrl(captured.url),
    title: captured.title,
    tree: snapshot.tree,
    elements: snapshot.elements,
    ...(shape.includeText ? { text: snapshot.text } : {}),
    ...(shape.includeBoxes
      ? { boxes: Object.fromEntries([...snapshot.boxes].map(([ref, box]) => [ref, box.map((n) => Math.round(n * 10) / 10) as typeof box])) }
      : {}),
    frames: snapshot.frames.map((f) => ({
      frame_id: f.frameId,
      url: redactUrl(f.url),
      status: f.status,
      ...(f.reason ? { reason: f.reason } : {}),
    })),
    truncated: snapshot.truncated,
    ...(snapshot.dialog
      ? {
        dialog: {
          type: snapshot.dialog.type,
          message: snapshot.dialog.message,
          ...(snapshot.dialog.defaultPrompt !== undefined ? { default_prompt: snapshot.dialog.defaultPrompt } : {}),
        },
      }
      : {}),
    ...(captured.diff ? { diff: captured.diff } : {}),
    ...(captured.matches ? { matches: captured.matches } : {}),
  };
}

/** Observes `frame` of `tab`, issuing the tab's new current state, and words it for the wire. */
export async function observeForWire(
  session: Session,
  tab: Tab,
  frame: FrameRecord,
  options: CaptureOptions & ObservationShape = {},
): Promise<Observation> {
  const { includeText, includeBoxes, ...capture } = options;
  const captured = await captureObservation(session, session.browser.worlds, tab, frame, capture);
  return wireObservation(session.id, captured, {
    ...(includeText !== undefined ? { includeText } : {}),
    ...(includeBoxes !== undefined ? { includeBoxes } : {}),
  });
}

/** Finds the matching elements of `frame` of `tab` (observe's find), issuing the tab's new current state, and words it. */
export async function findForWire(session: Session, tab: Tab, frame: FrameRecord, options: FindCaptureOptions): Promise<Observation> {
  return wireObservation(session.id, await captureFind(session, session.browser.worlds, tab, frame, options));
}
