// A session call as its trace records it (PROTOCOL.md §16): the one place every recorded call
// passes (methods/common.ts onSession runs each through `recorded`), with its params, its answer or
// its error, and for an act the screenshots before and after it, taken as `screenshot` takes them
// (the same masks), JPEG at the inspector's live-view size.
import type { Tab } from '../browser/tab.ts';
import { captureScreenshot } from '../capture/screenshot.ts';
import type { Session } from '../sessions/session.ts';
import type { OpenStep, StepEnd } from '../sessions/trace-recorder.ts';
import { toJsonRpcError } from './errors.ts';

/** The long side of a trace's screenshots: the inspector's live view shows them at about this width. */
const FRAME_MAX_SIDE = 800;
/** JPEG quality of a trace's screenshots: readable text at a fraction of the bytes (docs/traces.md). */
const FRAME_QUALITY = 55;
/** What a type or fill action's text becomes in a trace when it may have gone into a password field. */
const HIDDEN = '[redacted]';

/** What the trace needs to know of a call. */
export interface RecordedCall {
  method: string;
  params: Record<string, unknown>;
  /** Screenshots before and after (act). */
  frames: boolean;
}

interface Frame {
  name: string;
  scale: number;
  target?: StepEnd['target'];
}

/** Runs `run` and, when the session records, records it as one step. */
export async function recorded<T>(session: Session, call: RecordedCall, run: () => Promise<T>): Promise<T> {
  const step = session.trace.begin();
  if (!step) return run();
  const tab = tabOf(session, call.params);
  const before = call.frames && tab ? await frameOf(session, tab, call.params) : undefined;
  let result: T;
  try {
    result = await run();
  } catch (error) {
    finish(session, step, call, tab, { error: toJsonRpcError(error) }, before, undefined);
    throw error;
  }
  const after = call.frames && tab && !tab.closed ? await frameOf(session, tab, undefined) : undefined;
  finish(session, step, call, tab, { result }, before, after);
  return result;
}

function finish(
  session: Session,
  step: OpenStep,
  call: RecordedCall,
  tab: Tab | undefined,
  outcome: Pick<StepEnd, 'result' | 'error'>,
  before: Frame | undefined,
  after: Frame | undefined,
): void {
  session.trace.finish(step, call.method, {
    params: call.method === 'act' ? actParamsShown(call.params, outcome.result) : call.params,
    ...(outcome.error !== undefined ? { error: outcome.error } : { result: withoutImage(outcome.result) }),
    ...(tab ? { tabId: tab.targetId } : {}),
    ...(before ? { frameBefore: before.name, target: before.target } : {}),
    ...(after ? { frameAfter: after.name } : {}),
    ...(frameScaleOf(before, after) !== undefined ? { frameScale: frameScaleOf(before, after) } : {}),
  });
}

/** Image px per CSS px of a step's frames (both are taken alike). */
function frameScaleOf(before: Frame | undefined, after: Frame | undefined): number | undefined {
  return (before ?? after)?.scale;
}

/** The tab a call concerns: its target_id, the tab of its state, or the selected tab. */
function tabOf(session: Session, params: Record<string, unknown>): Tab | undefined {
  const stateId = params['state_id'];
  const targetId = typeof params['target_id'] === 'string'
    ? params['target_id']
    : typeof stateId === 'string'
    ? session.states.get(stateId)?.targetId
    : undefined;
  try {
    return session.resolveTab(targetId);
  } catch {
    return undefined;
  }
}

/** The ref an act acts on first (its target in the screenshot before it). */
function firstRef(params: Record<string, unknown>): string | undefined {
  const actions = Array.isArray(params['actions']) ? params['actions'] : [params];
  const ref = (actions[0] as Record<string, unknown> | undefined)?.['ref'];
  return typeof ref === 'string' ? ref : undefined;
}

/**
 * A screenshot for the trace, kept by the recorder (spilled to disk); undefined when none can be
 * taken now (a dialog is open, the tab went away): a trace never fails the call it records.
 */
async function frameOf(session: Session, tab: Tab, actParams: Record<string, unknown> | undefined): Promise<Frame | undefined> {
  if (tab.dialogs.pending || tab.closed) return undefined;
  const ref = actParams ? firstRef(actParams) : undefined;
  const stateId = actParams?.['state_id'];
  const node = ref !== undefined && typeof stateId === 'string' ? session.states.get(stateId)?.targets.get(ref) : undefined;
  try {
    const shot = await captureScreenshot(tab, session.browser.worlds, {
      format: 'jpeg',
      quality: FRAME_QUALITY,
      fit: { maxSide: FRAME_MAX_SIDE },
      secrets: session.knownSecrets(),
      signal: session.closeSignal,
      ...(node ? { measure: [{ ref: node.ref, frameId: node.frameId, backendNodeId: node.backendNodeId }] } : {}),
    });
    const name = await session.trace.keepFrame(base64Bytes(shot.data));
    if (name === undefined) return undefined;
    const box = node ? shot.boxes?.[node.ref] : undefined;
    return { name, scale: shot.scale ?? 1, ...(box && node ? { target: { ref: node.ref, box } } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Act's params as a trace shows them. The text of a `type` or `fill` is kept only once the action
 * completed into a field that is not a password field (redaction hides it then by itself: the act
 * made it a secret of the session); an action that did not complete may have been aimed at one,
 * so its text is hidden. A `secret` is only a name and stays.
 */
function actParamsShown(params: Record<string, unknown>, result: unknown): Record<string, unknown> {
  const completed = new Set(
    result !== null && typeof result === 'object' && Array.isArray((result as { completed?: unknown }).completed)
      ? ((result as { completed: number[] }).completed)
      : [],
  );
  const hide = (action: Record<string, unknown>, index: number): Record<string, unknown> =>
    (action['action'] === 'type' || action['action'] === 'fill') && typeof action['text'] === 'string' && !completed.has(index)
      ? { ...action, text: HIDDEN }
      : action;
  if (Array.isArray(params['actions'])) {
    return { ...params, actions: (params['actions'] as Record<string, unknown>[]).map((action, i) => hide(action, i)) };
  }
  return hide(params, 0);
}

/**
 * A result without the bytes of the image it carries (a screenshot's, or an act's `screenshot`):
 * the trace has its own frames, and a full-size PNG in base64 would be most of the file.
 */
function withoutImage(result: unknown): unknown {
  if (result === null || typeof result !== 'object') return result;
  const record = result as Record<string, unknown>;
  const strip = (image: Record<string, unknown>) => {
    const { data, ...rest } = image;
    return typeof data === 'string' ? { ...rest, data_bytes: Math.floor((data.length * 3) / 4) } : image;
  };
  if (typeof record['mime'] === 'string' && typeof record['data'] === 'string') return strip(record);
  const shot = record['screenshot'];
  if (shot !== null && typeof shot === 'object') return { ...record, screenshot: strip(shot as Record<string, unknown>) };
  return result;
}

function base64Bytes(data: string): Uint8Array {
  const text = atob(data);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
