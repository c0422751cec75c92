// screenshot (PROTOCOL.md §10): the viewport, the whole page or one element of a tab, with
// password inputs masked (§11). `screenshotForAct` serves act's `screenshot` option.
import type { Tab } from '../../browser/tab.ts';
import { ServerError } from '../../errors.ts';
import { ElementClipError } from '../../capture/regions.ts';
import { captureScreenshot, type Screenshot, type ScreenshotOptions } from '../../capture/screenshot.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import type { AnyMethodDef } from '../define.ts';
import { screenshot } from '../../wire/screenshot.ts';
import { captureFailure, refuseWhileModal } from './capture-errors.ts';
import { sessionMethod } from './common.ts';

function refError(message: string, field: 'ref' | 'state_id' = 'ref'): ServerError {
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
        };
      },
    }),
  ];
}

/** act's `screenshot` option: the viewport as PNG, masked like any screenshot. Runs inside act's turn of the session queue. */
export async function screenshotForAct(session: Session, tab: Tab): Promise<Pick<Screenshot, 'mime' | 'data'>> {
  const shot = await capture(session, tab, { signal: session.closeSignal });
  return { mime: shot.mime, data: shot.data };
}
