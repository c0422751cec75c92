// What a hit point means for a pointer action (PROTOCOL.md §7 step 7): whether the browser routes
// a click there to the target, and, when it does not, what real element is on top. A hit on a
// pseudo-element comes back from DOM.getNodeForLocation as the pseudo-element itself; resolved in
// our isolated world it is a CSSPseudoElement, whose `element` is the element it belongs to.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPageRaw } from '../browser/page-module.ts';
import { describeHit } from '../browser/describe-node.ts';
import { type NodeHandle, release, resolveNode } from './node-handle.ts';
import type { Blocker, HitDescription, NodeToName } from './outcome.ts';

/** A hit pseudo-element (a handle in our world) described as the element it belongs to. */
export async function describeOriginating(pseudo: NodeHandle): Promise<HitDescription | undefined> {
  const { result } = await callPageRaw(pseudo, 'originatingElement', [], {});
  if (!result.objectId) return undefined;
  try {
    return (await describeHit(pseudo.session, { objectId: result.objectId })).hit;
  } finally {
    pseudo.session.send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
  }
}

/** What was hit in `frame` (by a point over one of its out-of-process iframes), as a real element. */
export async function describeInFrame(worlds: IsolatedWorlds, frame: FrameRecord, backendNodeId: number): Promise<HitDescription> {
  const described = await describeHit(frame.session, { backendNodeId });
  if (!described.pseudo) return described.hit;
  try {
    const context = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
    const handle = await resolveNode(frame.session, backendNodeId, context);
    try {
      return (await describeOriginating(handle)) ?? described.hit;
    } finally {
      release(handle);
    }
  } catch {
    return described.hit;
  }
}

/**
 * The blocker of a hit node (a handle in our world) and the control that dismisses it, both of
 * `frame` (docs/tree-format.md, "Blockers"), described by their accessibility role and name.
 */
export async function blockerOf(hit: NodeHandle, frame: FrameRecord): Promise<Blocker | undefined> {
  const { session, executionContextId } = hit;
  const named = async (objectId: string | undefined): Promise<NodeToName | undefined> => {
    if (!objectId) return undefined;
    const described = await describeHit(session, { objectId });
    if (described.backendNodeId === undefined) return undefined;
    return { frameId: frame.id, loaderId: frame.loaderId, backendNodeId: described.backendNodeId, ...described.hit };
  };
  const found = (await callPageRaw(hit, 'blockerOf', [], {})).result.objectId;
  if (!found) return undefined;
  try {
    const control = (await callPageRaw({ session, executionContextId, objectId: found }, 'dismissOf', [], {})).result.objectId;
    try {
      const [blocker, dismiss] = await Promise.all([named(found), named(control)]);
      return blocker ? { blocker, ...(dismiss ? { dismiss } : {}) } : undefined;
    } finally {
      if (control) session.send('Runtime.releaseObject', { objectId: control }).catch(() => {});
    }
  } finally {
    session.send('Runtime.releaseObject', { objectId: found }).catch(() => {});
  }
}
