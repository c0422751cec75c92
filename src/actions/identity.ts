// Step 5 of PROTOCOL.md §7: the observed target, frame and document must still be the ones the
// state saw, and each ref's node must still be that very node, connected to that very document.
// backendNodeIds restart in a new renderer, so the loader and the owner document are both checked
// (CDP-NOTES §3, pitfall 1); a node is never swapped for a look-alike.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import type { StateRecord } from '../observe/state-store.ts';
import type { RefTarget } from '../observe/render.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPage, PageObject } from '../browser/page-module.ts';
import { type CdpError, isCdpError } from '../cdp/errors.ts';
import { type NodeHandle, resolveKept } from './node-handle.ts';
import { ActionError } from './outcome.ts';
import type { PointTarget } from './pointer.ts';

/**
 * The frame a state observed, still attached and still showing the observed document. Acting on
 * nodes needs a document that was read; navigating (`readable: false`) only needs the same one.
 */
export function checkFrame(tab: Tab, record: StateRecord, frameId: string, options: { readable?: boolean } = {}): FrameRecord {
  const frame = tab.frames.get(frameId);
  if (!frame) throw new ActionError('frame_detached', `frame ${frameId} is no longer in the tab`);
  const observed = record.frames.get(frameId);
  if (!observed) throw new ActionError('document_changed', `frame ${frameId} was not part of the observation`);
  if (observed.status !== 'observed' && options.readable !== false) {
    throw new ActionError(
      'document_changed',
      `frame ${frameId} was not readable when the state was observed (${observed.reason ?? 'unavailable'})`,
    );
  }
  if (frame.loaderId !== observed.loaderId) {
    throw new ActionError('document_changed', 'the frame has loaded another document since the observation (navigation or reload)');
  }
  return frame;
}

/**
 * A node resolved for a step whose first in-page call checks identity before touching the node
 * (focus, for typing; it does so every time, with `target.document`). With `confirm`, that call
 * is the node's only check so far (one round trip fewer than checking first): it must return
 * without side effects unless `this.isConnected && this.ownerDocument === target.document`, and
 * `confirm` is called once it did pass.
 */
export interface FocusTarget {
  target: PointTarget;
  confirm?: () => void;
}

/**
 * Verdicts on where a node is or whether it takes input, and failed commands on it: a node that is
 * no longer connected explains each of them (it has no box, is hit nowhere, takes no focus), and
 * identity comes before geometry (PROTOCOL.md §7), so they are reported only for a node still there.
 */
function geometryVerdict(error: unknown): error is ActionError | CdpError {
  if (error instanceof ActionError) {
    return error.type === 'not_visible' || error.type === 'click_intercepted' || error.type === 'focus_mismatch';
  }
  return isCdpError(error) && error.kind === 'protocol';
}

/** Resolves refs to live node handles in an isolated world; checks once per act until `invalidate`. */
export class NodeResolver {
  readonly #tab: Tab;
  readonly #record: StateRecord;
  readonly #worlds: IsolatedWorlds;
  /** Refs checked since the last `invalidate` (the page has not been touched in between). */
  readonly #checked = new Map<string, Promise<PointTarget>>();

  constructor(tab: Tab, record: StateRecord, worlds: IsolatedWorlds) {
    this.#tab = tab;
    this.#record = record;
    this.#worlds = worlds;
  }

  /** ref_not_found when the state never had this ref (refs from another observation included). */
  targetOf(ref: string): RefTarget {
    const target = this.#record.targets.get(ref);
    if (!target) throw new ActionError('ref_not_found', `${ref} is not a ref of state ${this.#record.stateId}`);
    return target;
  }

  /** The frame of a ref, checked (frame_detached / document_changed). */
  frameOf(ref: string): FrameRecord {
    return checkFrame(this.#tab, this.#record, this.targetOf(ref).frameId);
  }

  /** The live node behind `ref`, or node_detached; checked once until `invalidate`. */
  resolve(ref: string): Promise<PointTarget> {
    let checked = this.#checked.get(ref);
    if (!checked) {
      checked = this.#resolve(ref);
      checked.catch(() => this.#checked.delete(ref));
      this.#checked.set(ref, checked);
    }
    return checked;
  }

  /** Input has been sent since the last checks: nodes must be checked again before use. */
  invalidate(): void {
    this.#checked.clear();
  }

  /**
   * The node behind `ref` for a step that checks its identity itself, in page, in the same call
   * that goes on to act on it (see FocusTarget); a ref already checked comes without `confirm`.
   */
  async resolveForCheckInPage(ref: string): Promise<FocusTarget> {
    const checked = this.#checked.get(ref);
    if (checked) return { target: await checked };
    const target = await this.#lookUp(ref);
    return {
      target,
      confirm: () => {
        if (!this.#checked.has(ref)) this.#checked.set(ref, Promise.resolve(target));
      },
    };
  }

  /**
   * What to report for `error`, which stopped a step on `refs`: when it is a verdict on geometry
   * (see geometryVerdict), the node check again, whose failure (node_detached, or the frame's
   * frame_detached / document_changed) is what went wrong; else, or when the nodes still pass,
   * `error` itself. The page may replace a node at any moment after its check (a component
   * re-rendered after the batch's previous action, a timer): such a node has no box and is hit
   * nowhere, and that is not what is wrong with it.
   */
  async identityFirst(error: unknown, refs: readonly string[]): Promise<unknown> {
    if (!geometryVerdict(error)) return error;
    this.invalidate();
    for (const ref of refs) {
      try {
        await this.resolve(ref);
      } catch (stale) {
        // A check that could not be made (the page stopped answering) leaves the verdict as it was.
        if (!(stale instanceof ActionError)) return error;
        const sideEffect = error instanceof ActionError ? error.sideEffect : true;
        return new ActionError(stale.type, stale.message, { sideEffect, cause: error });
      }
    }
    return error;
  }

  async #resolve(ref: string): Promise<PointTarget> {
    const target = await this.#lookUp(ref);
    const same = await callPage(target.handle, 'isSameConnectedNode', [new PageObject(target.document.objectId)]);
    if (!same) throw new ActionError('node_detached', `the node of ${ref} was removed from the document`);
    return target;
  }

  /** The node and its observed document as handles in the frame's isolated world (unchecked). */
  async #lookUp(ref: string): Promise<PointTarget> {
    const target = this.targetOf(ref);
    const frame = checkFrame(this.#tab, this.#record, target.frameId);
    if (this.#tab.crashed) throw new ActionError('document_changed', 'the page crashed: navigate or reload the tab');
    const executionContextId = await this.#worlds.contextFor(frame.session, frame.id, frame.loaderId);
    const observed = this.#record.frames.get(frame.id)!;
    // Both lookups at once: they are independent round trips.
    const documentLookup = observed.documentBackendNodeId === undefined
      ? Promise.reject(new Error('no document node was recorded'))
      : resolveKept(frame.session, { backendNodeId: observed.documentBackendNodeId, executionContextId, loaderId: frame.loaderId });
    const nodeLookup = resolveKept(frame.session, { backendNodeId: target.backendNodeId, executionContextId, loaderId: frame.loaderId });
    nodeLookup.catch(() => {});
    let handle: NodeHandle;
    let documentHandle: NodeHandle;
    try {
      documentHandle = await documentLookup;
    } catch (error) {
      throw new ActionError('document_changed', 'the observed document is gone', { cause: error });
    }
    try {
      handle = await nodeLookup;
    } catch (error) {
      throw new ActionError('node_detached', `the node of ${ref} no longer exists`, { cause: error });
    }
    return { tab: this.#tab, frame, handle, document: documentHandle, executionContextId, worlds: this.#worlds };
  }
}
