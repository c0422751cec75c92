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
import { ServerError } from '../../errors.ts';
import { redactUrl } from '../../util/redact.ts';
import { cursorOf, cutObservation, firstPart, parseCursor } from '../observation-parts.ts';
import type { Observation } from '../../wire/index.ts';

/** What the caller asked to see beyond the tree and the elements, and within what size. */
export interface ObservationShape {
  includeText?: boolean;
  includeBoxes?: boolean;
  /** Cut the answer at this many bytes of JSON (PROTOCOL.md §6, "Budgets and cursors"). */
  maxBytes?: number;
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
    // In markdown format the markdown carries the refs: the tree would say it all twice.
    tree: captured.markdown !== undefined ? '' : snapshot.tree,
    elements: snapshot.elements,
    ...(shape.includeText ? { text: snapshot.text } : {}),
    ...(captured.markdown !== undefined ? { markdown: captured.markdown } : {}),
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
    ...(captured.covers.length > 0 ? { blockers: [...captured.covers] } : {}),
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
  const { includeText, includeBoxes, maxBytes, ...capture } = options;
  const captured = await captureObservation(session, session.browser.worlds, tab, frame, capture);
  const whole = wireObservation(session.id, captured, {
    ...(includeText !== undefined ? { includeText } : {}),
    ...(includeBoxes !== undefined ? { includeBoxes } : {}),
  });
  return withinBudget(session, whole, maxBytes);
}

/**
 * `whole` as its first part within `maxBytes`, when given: a cut one is kept by the session so
 * that its cursor reads on.
 */
export function withinBudget(session: Pick<Session, 'cutObservations'>, whole: Observation, maxBytes: number | undefined): Observation {
  if (maxBytes === undefined) return whole;
  const { part, next } = firstPart(whole, maxBytes);
  if (!next) return part;
  session.cutObservations.renew(whole.state_id, whole);
  return { ...part, next_cursor: cursorOf(whole.state_id, next) };
}

/** The part of a cut observation that `cursor` names, within `maxBytes` (all the rest without). */
export function observationPart(session: Pick<Session, 'cutObservations'>, cursor: string, maxBytes: number | undefined): Observation {
  const named = parseCursor(cursor);
  const kept = named ? session.cutObservations.get(named.stateId) : undefined;
  const cut = kept && cutObservation(kept, named!.start, maxBytes ?? Number.MAX_SAFE_INTEGER);
  if (!named || !kept || !cut) {
    throw new ServerError(
      'invalid_params',
      kept || !named ? 'not a cursor an observation of this session gave' : "this cursor's observation is no longer kept: observe again",
      { details: { issues: [{ path: 'cursor', message: kept || !named ? 'not a cursor' : 'no longer kept' }] } },
    );
  }
  const { part, next } = cut;
  return next ? { ...part, next_cursor: cursorOf(kept.state_id, next) } : part;
}

/** Finds the matching elements of `frame` of `tab` (observe's find), issuing the tab's new current state, and words it. */
export async function findForWire(
  session: Session,
  tab: Tab,
  frame: FrameRecord,
  options: FindCaptureOptions & Pick<ObservationShape, 'maxBytes'>,
): Promise<Observation> {
  const { maxBytes, ...find } = options;
  return withinBudget(session, wireObservation(session.id, await captureFind(session, session.browser.worlds, tab, frame, find)), maxBytes);
}
