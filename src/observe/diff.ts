// PURE: what changed between two observations, keyed by the stable refs.
import type { ElementView } from './render.ts';

export interface ObservationDiff {
  base: string;
  added: ElementView[];
  changed: ElementView[];
  removed: string[];
  text_changed: boolean;
}

function sameElement(a: ElementView, b: ElementView): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof ElementView>;
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}

export function diffElements(
  base: { stateId: string; elements: readonly ElementView[]; textHash: number },
  next: { elements: readonly ElementView[]; textHash: number },
): ObservationDiff {
  const before = new Map(base.elements.map((element) => [element.ref, element]));
  const added: ElementView[] = [];
  const changed: ElementView[] = [];
  const seen = new Set<string>();
  for (const element of next.elements) {
    seen.add(element.ref);
    const previous = before.get(element.ref);
    if (!previous) added.push(element);
    else if (!sameElement(previous, element)) changed.push(element);
  }
  const removed = base.elements.filter((element) => !seen.has(element.ref)).map((element) => element.ref);
  return { base: base.stateId, added, changed, removed, text_changed: base.textHash !== next.textHash };
}
