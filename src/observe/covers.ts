// What covers an observation's elements where a click would land (PROTOCOL.md §6 `blockers`): a
// cookie banner or a dialog on top of a link is told with the observation, and so is the control
// that dismisses it, so that an agent clears the way in the same act as its click instead of
// learning it from a refusal.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { describeHit } from '../browser/describe-node.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPageRaw } from '../browser/page-module.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { Box } from './page-facts.ts';
import type { RefTarget } from './render.ts';
import { backendIdOf, NODE_LIST } from './node-list.ts';

/** A blocker of the observation, as the wire says it (PROTOCOL.md §6). */
export interface CoverView {
  /** The blocker's ref, when the observation gave it one. */
  ref?: string;
  role: string;
  name: string;
  /** The control inside the blocker that dismisses it, when the observation gave it a ref. */
  dismiss_ref?: string;
  /** The refs it covers, in the observation's order. */
  covers: string[];
}

/** One element a covers answer was asked about: kept with the answer, it tells when the answer still holds. */
export interface CoversAsked {
  ref: string;
  backendNodeId: number;
  box: Box | undefined;
}

export interface CoversInput {
  worlds: IsolatedWorlds;
  /** The tab's main frame: only its elements are told apart by a point of the tab's viewport. */
  frame: FrameRecord;
  /** The observation's visible elements' boxes by ref, in CSS px of the tab's viewport. */
  boxes: ReadonlyMap<string, Box>;
  targets: readonly RefTarget[];
  send: SendOptions;
}

/** The blockers over the main frame's elements in view, or none when nothing covers any. */
export async function coversOf(input: CoversInput): Promise<CoverView[]> {
  const { worlds, frame, boxes, targets, send } = input;
  const inFrame = targets.filter((t) => t.frameId === frame.id && boxes.has(t.ref));
  if (inFrame.length === 0) return [];
  const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const { result, exceptionDetails } = await callPageRaw(
    { session: frame.session, executionContextId: contextId },
    'coversAt',
    [inFrame.map((t) => boxes.get(t.ref)!)],
    NODE_LIST,
    send,
  );
  if (exceptionDetails || result.deepSerializedValue?.type !== 'array') return [];
  const [json, ...nodes] = result.deepSerializedValue.value as Cdp.Runtime.DeepSerializedValue[];
  if (typeof json?.value !== 'string') return [];
  const { covered } = JSON.parse(json.value) as { covered: number[] };
  // A node of the answer, and its ref when the observation gave it one.
  const nodeAt = (k: number): { backendNodeId: number; target?: RefTarget } | undefined => {
    const id = backendIdOf(nodes[k]);
    if (id === undefined) return undefined;
    const target = targets.find((t) => t.frameId === frame.id && t.backendNodeId === id);
    return { backendNodeId: id, ...(target ? { target } : {}) };
  };
  const covers: CoverView[] = [];
  for (let i = 0; i < nodes.length / 2; i++) {
    const refs = inFrame.filter((_, k) => covered[k] === i).map((t) => t.ref);
    const blocker = nodeAt(2 * i);
    if (!blocker || refs.length === 0) continue;
    const dismiss = nodeAt(2 * i + 1)?.target;
    const described = blocker.target ?? (await describeHit(frame.session, { backendNodeId: blocker.backendNodeId })).hit;
    covers.push({
      ...(blocker.target ? { ref: blocker.target.ref } : {}),
      role: described.role,
      name: described.name,
      ...(dismiss ? { dismiss_ref: dismiss.ref } : {}),
      covers: refs,
    });
  }
  return covers;
}
