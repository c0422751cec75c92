// Which elements a screenshot must mask besides password inputs (PROTOCOL.md §13): a field whose
// value holds a secret (a secret typed into a text field), and an element whose text or attribute
// shows one (a page that echoes it). Read from the same DOMSnapshot that finds password inputs, on
// the server: no secret is sent to the page to look for it.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { containsSecret, type KnownSecret } from '../util/redact.ts';

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

/** PURE: per document of the snapshot, the backendNodeIds of elements that show a known secret. */
export function readSecretEchoes(snapshot: Cdp.DOMSnapshot.CaptureSnapshotResult, known: readonly KnownSecret[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (known.length === 0) return out;
  const strings = snapshot.strings;
  // Most strings hold none: decide once per string, then look the nodes up by index.
  const secretString = new Set<number>();
  strings.forEach((text, index) => {
    if (known.some((secret) => containsSecret(text, secret))) secretString.add(index);
  });
  if (secretString.size === 0) return out;
  for (const document of snapshot.documents) {
    const nodes = document.nodes;
    const types = nodes.nodeType ?? [];
    const parents = nodes.parentIndex ?? [];
    const backendIds = nodes.backendNodeId ?? [];
    const values = nodes.nodeValue ?? [];
    const attributes = nodes.attributes ?? [];
    const found = new Set<number>();
    const mark = (index: number) => {
      if (types[index] === ELEMENT_NODE && backendIds[index] !== undefined) found.add(backendIds[index]!);
    };
    for (let i = 0; i < types.length; i++) {
      if (types[i] === TEXT_NODE && secretString.has(values[i] ?? -1)) mark(parents[i] ?? -1);
      else if (types[i] === ELEMENT_NODE && (attributes[i] ?? []).some((ref, k) => k % 2 === 1 && secretString.has(ref))) mark(i);
    }
    // Field values (inputs, textareas, selects) are rare data of the snapshot.
    for (const rare of [nodes.inputValue, nodes.textValue]) {
      if (!rare) continue;
      rare.index.forEach((nodeIndex, k) => {
        if (secretString.has(rare.value[k] ?? -1)) mark(nodeIndex);
      });
    }
    if (found.size > 0) out.set(strings[document.frameId] ?? '', [...found]);
  }
  return out;
}
