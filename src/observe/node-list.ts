// A page function's answer that holds nodes, taken by deep serialization: each node is named by its
// backendNodeId, so the answer needs no object handles, no describeNode per node and nothing to
// release. The page functions that answer so: pageFacts, axProbes, takeChanges, findInPage, coversAt.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { AnswerOptions } from '../browser/page-module.ts';

/** How such an answer is asked for: an array one level deep, its nodes without their children. */
export const NODE_LIST: AnswerOptions = {
  serializationOptions: { serialization: 'deep', maxDepth: 1, additionalParameters: { maxNodeDepth: 0, includeShadowTree: 'none' } },
};

/** The backendNodeId of a deep-serialized node, or undefined for anything else. */
export function backendIdOf(item: Cdp.Runtime.DeepSerializedValue | undefined): number | undefined {
  const id = item?.type === 'node' ? (item.value as { backendNodeId?: unknown } | undefined)?.backendNodeId : undefined;
  return typeof id === 'number' ? id : undefined;
}
