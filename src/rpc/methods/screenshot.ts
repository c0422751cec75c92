// screenshot (PROTOCOL.md §10): the viewport, the whole page or one element of a tab, with
// password inputs masked (§11). `screenshotForAct` serves act's `screenshot` option.
import type { Tab } from '../../browser/tab.ts';
import { ServerError } from '../../errors.ts';
import { ElementClipError } from '../../capture/regions.ts';
import type { RefNode } from '../../capture/ref-boxes.ts';
import { captureScreenshot, type Screenshot, type ScreenshotOptions } from '../../capture/screenshot.ts';
import type { RefTarget } from '../../observe/render.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import type { AnyMethodDef } from '../define.ts';
import { screenshot } from '../../wire/screenshot.ts';
import { captureFailure, refuseWhileModal } from './capture-errors.ts';
import { sessionMethod } from './common.ts';

function refError(message: string, field: 'ref' | 'state_id' | 'annotate' = 'ref'): ServerError {
  return new ServerError('invalid_params', message, { details: { issues: [{ path: field, message }] } });
}

/**
 * The element behind `ref`, from `stateId`'s record or the tab's current state. A superseded or
 * consumed state is fine here (a screenshot changes nothing), as long as its document is still
 * the frame's: after a navigation the same backendNodeId can name another node (CDP-NOTES §3).
 */
function elementOf(session: Session, tab: Tab, ref: string, stateId: string | undefined): { frameId: string; backendNodeId: number } {
  const record = stateId !== undefined ? session.states.get(stateId) : session.states.current(tab.targetId);
  if (!record) {
    throw stateId !== undefined
      ? refError(`state ${stateId} is unknown or no longer kept: observe again`, 'state_id')
      : refError(`tab ${tab.targetId} has no current observation to take ${ref} from: observe first`);
  }
  if (record.targetId !== tab.targetId) {
    throw refError(
      `state ${record.stateId} is an observation of tab ${record.targetId}, not of tab ${tab.targetId}: pass its target_id`,
      'state_id',
    );
  }
  const target = record.targets.get(ref);
  if (!target) throw refError(`${ref} is not a ref of state ${record.stateId}`);
  const frame = tab.frames.get(target.frameId);
  if (!frame) throw refError(`the frame of ${ref} is gone: observe again`);
  const observed = record.frames.get(target.frameId);
  if (observed && observed.loaderId !== frame.loaderId) {
    throw refError(`the document of ${ref} changed since state ${record.stateId}: observe again`);
  }
  return { frameId: target.frameId, backendNodeId: target.backendNodeId };
}

/** What annotate draws: the state's refs (all, or those `refs` names) whose documents are still the state's. */
interface Annotation {
  stateId: string;
  /** Every ref asked for, in the state's order (or the order of `refs`). */
  order: string[];
  /** Those whose frame still holds the observed document: the others are not drawn. */
  nodes: RefNode[];
}

function annotationOf(
  session: Session,
  tab: Tab,
  params: { state_id?: string | undefined; refs?: string[] | undefined },
): Annotation {
  const stateId = params.state_id;
  const record = stateId !== undefined ? session.states.get(stateId) : session.states.current(tab.targetId);
  if (!record) {
    throw stateId !== undefined
      ? refError(`state ${stateId} is unknown or no longer kept: observe again`, 'state_id')
      : refError(`tab ${tab.targetId} has no current observation whose refs could be drawn: observe first`, 'annotate');
  }
  if (record.targetId !== tab.targetId) {
    throw refError(
      `state ${record.stateId} is an observation of tab ${record.targetId}, not of tab ${tab.targetId}: pass its target_id`,
      'state_id',
    );
  }
  // Its backend node ids would name other nodes of a new document (CDP-NOTES §3): draw nothing.
  const root = record.frames.get(record.frameId);
  if (!root || tab.frames.get(record.frameId)?.loaderId !== root.loaderId) {
    throw refError(`the document changed since state ${record.stateId} (a navigation or reload): observe again`, 'state_id');
  }
  let targets: RefTarget[];
  if (params.refs) {
    const asked = [...new Set(params.refs)];
    const unknown = asked.filter((ref) => !record.targets.has(ref));
    if (unknown.length > 0) {
      throw new ServerError(
        'invalid_params',
        `${unknown.join(', ')} ${unknown.length === 1 ? 'is not a ref' : 'are not refs'} of state ${record.stateId}`,
        {
          details: {
            issues: unknown.map((ref) => ({
              path: `refs.${params.refs!.indexOf(ref)}`,
              message: `${ref} is not a ref of state ${record.stateId}`,
            })),
          },
        },
      );
    }
    targets = asked.map((ref) => record.targets.get(ref)!);
  } else {
    targets = [...record.targets.values()];
  }
  const sameDocument = (frameId: string) => {
    const observed = record.frames.get(frameId);
    return observed !== undefined && tab.frames.get(frameId)?.loaderId === observed.loaderId;
  };
  return {
    stateId: record.stateId,
    order: targets.map((target) => target.ref),
    nodes: targets
      .filter((target) => sameDocument(target.frameId))
      .map(({ ref, frameId, backendNodeId }) => ({ ref, frameId, backendNodeId })),
  };
}

const CLIP_FAILURES: Record<ElementClipError['reason'], string> = {
  frame_detached: 'its frame is gone',
  node_detached: 'its element no longer exists',
  not_rendered: 'its element has no visible box (hidden, empty, or outside its frame)',
};

/** Runs a capture and words its failures for the wire. */
async function capture(session: Session, tab: Tab, options: ScreenshotOptions, ref?: string) {
  refuseWhileModal(session, tab);
  try {
    return await captureScreenshot(tab, session.browser.worlds, { ...options, secrets: session.knownSecrets() });
  } catch (error) {
    if (error instanceof ElementClipError) {
      throw refError(`cannot screenshot ${ref ?? 'the element'}: ${CLIP_FAILURES[error.reason]}`);
    }
    throw captureFailure(session, tab, error, 'screenshot');
  }
}

export function screenshotMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...screenshot,
      run: async (session, params, { signal }) => {
        const tab = session.resolveTab(params.target_id);
        const clip = params.ref !== undefined ? elementOf(session, tab, params.ref, params.state_id) : undefined;
        const annotation = params.annotate ? annotationOf(session, tab, params) : undefined;
        const shot = await capture(
          session,
          tab,
          {
            ...(params.full_page ? { fullPage: true } : {}),
            ...(clip ? { clip } : {}),
            ...(params.format ? { format: params.format } : {}),
            ...(params.quality !== undefined ? { quality: params.quality } : {}),
            ...(params.max_side !== undefined || params.max_pixels !== undefined
              ? {
                fit: {
                  ...(params.max_side !== undefined ? { maxSide: params.max_side } : {}),
                  ...(params.max_pixels !== undefined ? { maxPixels: params.max_pixels } : {}),
                },
              }
              : {}),
            ...(annotation ? { annotate: annotation.nodes } : {}),
            signal,
          },
          params.ref,
        );
        return {
          mime: shot.mime,
          data: shot.data,
          width: shot.width,
          height: shot.height,
          ...(shot.scale !== undefined ? { scale: shot.scale } : {}),
          ...(annotation ? { state_id: annotation.stateId, not_drawn: notDrawn(annotation, shot.notDrawn ?? []) } : {}),
        };
      },
    }),
  ];
}

/** The refs asked for but not drawn, in the order asked: their document is gone, or they had no box in the image. */
function notDrawn(annotation: Annotation, unplaced: readonly string[]): string[] {
  const measured = new Set(annotation.nodes.map((node) => node.ref));
  const missing = new Set(unplaced);
  return annotation.order.filter((ref) => !measured.has(ref) || missing.has(ref));
}

/** act's `screenshot` option: the viewport as PNG, masked like any screenshot. Runs inside act's turn of the session queue. */
export async function screenshotForAct(session: Session, tab: Tab): Promise<Pick<Screenshot, 'mime' | 'data'>> {
  const shot = await capture(session, tab, { signal: session.closeSignal });
  return { mime: shot.mime, data: shot.data };
}
