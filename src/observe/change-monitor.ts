// Knowing, cheaply, whether a frame's document may have changed since it was last read. A
// monitor in our isolated world counts DOM mutations (in the document and in every shadow root
// it can reach: open ones by walking, closed ones handed to it through CDP) and the events that
// change what an observation shows without a mutation (input values, focus, scrolling, hover,
// resizing, media loads, animations). An unchanged count means the last read still holds.
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import { pageFunction } from '../browser/page-function.ts';

/** Events after which an observation may read differently even though no node changed. */
const STATE_EVENTS = [
  'input', 'change', 'focusin', 'focusout', 'scroll', 'resize', 'load', 'error', 'toggle',
  'transitionend', 'animationend', 'animationstart', 'click', 'mouseover', 'mouseout', 'pointerup',
  'keyup', 'select', 'reset', 'submit', 'fullscreenchange', 'hashchange', 'popstate',
];

interface Monitor {
  generation: number;
  watch(root: Node): void;
  /** Form control state, which scripts can change with no event and no mutation (.checked = …). */
  controls(): number;
}

/**
 * In page: the monitor's version (change count and a digest of form control state), installing
 * the monitor first if this document has none.
 */
function readGeneration(events: string[]): string {
  const scope = globalThis as unknown as { __pagewireMonitor?: Monitor };
  if (scope.__pagewireMonitor) return `${scope.__pagewireMonitor.generation}/${scope.__pagewireMonitor.controls()}`;
  const watched = new WeakSet<Node>();
  const roots: Array<WeakRef<Document | ShadowRoot>> = [];
  const monitor: Monitor = {
    generation: 0,
    watch(root: Node) {
      if (watched.has(root)) return;
      watched.add(root);
      if (root instanceof Document || root instanceof ShadowRoot) roots.push(new WeakRef(root));
      observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    },
    controls() {
      let digest = 0;
      for (const ref of roots) {
        const root = ref.deref();
        if (!root) continue;
        for (const control of root.querySelectorAll('input, select, textarea')) {
          const c = control as HTMLInputElement & HTMLSelectElement;
          digest = (Math.imul(digest, 31) + (c.checked ? 7 : 3) + (c.indeterminate ? 11 : 0) + (c.value?.length ?? 0) * 13 + (c.selectedIndex ?? 0) * 17) | 0;
        }
      }
      return digest;
    },
  };
  const scan = (root: Element | Document | ShadowRoot) => {
    if ('shadowRoot' in root && root.shadowRoot) {
      monitor.watch(root.shadowRoot);
      scan(root.shadowRoot);
    }
    for (const element of root.querySelectorAll('*')) {
      if (element.shadowRoot) {
        monitor.watch(element.shadowRoot);
        scan(element.shadowRoot);
      }
    }
  };
  const observer = new MutationObserver((records) => {
    monitor.generation++;
    for (const record of records) for (const node of record.addedNodes) if (node instanceof Element) scan(node);
  });
  monitor.watch(document);
  scan(document);
  const bump = () => {
    monitor.generation++;
  };
  for (const type of events) addEventListener(type, bump, { capture: true, passive: true });
  document.fonts?.addEventListener('loadingdone', bump);
  scope.__pagewireMonitor = monitor;
  // Counting starts now, before the caller reads the page: anything after this changes the version.
  return `0/${monitor.controls()}`;
}

function watchRoot(this: Node): void {
  (globalThis as unknown as { __pagewireMonitor?: Monitor }).__pagewireMonitor?.watch(this);
}

/**
 * The frame document's version, or undefined when it cannot be read. Equal versions: nothing
 * observable changed in between.
 */
export async function readChangeCount(worlds: IsolatedWorlds, frame: FrameRecord, timeoutMs: number): Promise<string | undefined> {
  try {
    const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
    const { result, exceptionDetails } = await frame.session.sendWith({ timeoutMs }, 'Runtime.callFunctionOn', {
      functionDeclaration: pageFunction(readGeneration),
      executionContextId: contextId,
      arguments: [{ value: STATE_EVENTS }],
      returnByValue: true,
    });
    if (exceptionDetails || typeof result.value !== 'string' || result.value === '') return undefined;
    return result.value;
  } catch {
    return undefined;
  }
}

/** Hands closed shadow roots (which page JS cannot reach) to the frame's monitor. */
export async function watchClosedRoots(worlds: IsolatedWorlds, frame: FrameRecord, backendNodeIds: readonly number[], timeoutMs: number): Promise<boolean> {
  try {
    const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
    await Promise.all(
      backendNodeIds.map(async (backendNodeId) => {
        const { object } = await frame.session.sendWith({ timeoutMs }, 'DOM.resolveNode', { backendNodeId, executionContextId: contextId });
        if (!object.objectId) throw new Error('no object');
        await frame.session.sendWith({ timeoutMs }, 'Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: pageFunction(watchRoot) });
        frame.session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
      }),
    );
    return true;
  } catch {
    return false;
  }
}
