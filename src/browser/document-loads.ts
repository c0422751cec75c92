// Where each frame's document stands in its loading, from Page.lifecycleEvent: `loading` from its
// commit, `interactive` from DOMContentLoaded, `complete` from the window's load event. Enabling
// lifecycle events replays the current document's events (CDP-NOTES §6), so a tab attached after
// its page loaded is known too. Apps whose module loader injects their scripts after
// DOMContentLoaded attach their handlers only before `load`: an act waits for it (bounded) before
// its first input, and a navigation's fresh observation is taken after it (PROTOCOL.md §7).
import type { CdpSession } from '../cdp/session.ts';
import type { Disposable } from '../util/disposable.ts';

export type ReadyState = 'loading' | 'interactive' | 'complete';

/** How long past DOMContentLoaded a document's load event is waited for, at most. */
export const LOAD_WAIT_AFTER_DCL_MS = 5_000;

interface DocumentLoad {
  loaderId: string;
  state: ReadyState;
  /** When its DOMContentLoaded was seen (or, for a document first met later, when it was met). */
  interactiveAt: number | undefined;
}

/** How a wait for a document's load event ended. */
export type LoadWait =
  | { kind: 'complete' }
  /**
   * Past the bound after DOMContentLoaded (or the caller's own bound) with no load event; `waited`
   * is false when it was already past when the wait began.
   */
  | { kind: 'bound'; waited: boolean }
  /** The frame committed another document, or went away, meanwhile. */
  | { kind: 'replaced' };

export class DocumentLoads {
  readonly #frames = new Map<string, DocumentLoad>();
  readonly #waiters = new Set<() => void>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** Follows the lifecycle events of `session` (the page's, or an out-of-process iframe's). */
  watch(session: CdpSession): Disposable {
    return session.on('Page.lifecycleEvent', (event) => this.onLifecycle(event.frameId, event.loaderId, event.name));
  }

  onLifecycle(frameId: string, loaderId: string, name: string): void {
    const known = this.#frames.get(frameId);
    if (name === 'init' || name === 'commit') {
      if (known?.loaderId !== loaderId) this.#frames.set(frameId, { loaderId, state: 'loading', interactiveAt: undefined });
    } else if (name === 'DOMContentLoaded' || name === 'load') {
      const load = known?.loaderId === loaderId ? known : { loaderId, state: 'loading' as ReadyState, interactiveAt: undefined };
      load.interactiveAt ??= this.#now();
      if (name === 'load') load.state = 'complete';
      else if (load.state === 'loading') load.state = 'interactive';
      this.#frames.set(frameId, load);
    } else {
      return;
    }
    for (const wake of [...this.#waiters]) wake();
  }

  /** The frame went away: a wait on its document ends. */
  forget(frameId: string): void {
    if (!this.#frames.delete(frameId)) return;
    for (const wake of [...this.#waiters]) wake();
  }

  /** Where the document `loaderId` of `frameId` stands; one not heard of yet is still loading. */
  readyState(frameId: string, loaderId: string): ReadyState {
    const load = this.#frames.get(frameId);
    return load?.loaderId === loaderId ? load.state : 'loading';
  }

  /**
   * Resolves once the document has fired its load event, at most `LOAD_WAIT_AFTER_DCL_MS` after its
   * DOMContentLoaded (measured from when this tracker first met it, for one met later), or when
   * `untilMs` from now has passed, or when the frame holds another document. Never rejects; the
   * caller races it with its own deadline and losses.
   */
  whenLoaded(frameId: string, loaderId: string, untilMs: number): { promise: Promise<LoadWait>; dispose(): void } {
    const startedAt = this.#now();
    let wake: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const dispose = () => {
      if (wake) this.#waiters.delete(wake);
      clearTimeout(timer);
    };
    const promise = new Promise<LoadWait>((resolve) => {
      let met = false;
      let first = true;
      const settle = (outcome: LoadWait): true => {
        dispose();
        resolve(outcome);
        return true;
      };
      const check = (): boolean => {
        const load = this.#frames.get(frameId);
        // Not heard of yet (its commit is on its way) counts as loading; gone, or holding another
        // document, ends the wait.
        if (load ? load.loaderId !== loaderId : met) return settle({ kind: 'replaced' });
        met ||= load !== undefined;
        if (load?.state === 'complete') return settle({ kind: 'complete' });
        const interactiveAt = load?.interactiveAt;
        const endsAt = Math.min(startedAt + untilMs, interactiveAt === undefined ? Infinity : interactiveAt + LOAD_WAIT_AFTER_DCL_MS);
        const now = this.#now();
        if (now >= endsAt) return settle({ kind: 'bound', waited: !first });
        first = false;
        clearTimeout(timer);
        timer = setTimeout(() => wake?.(), endsAt - now);
        return false;
      };
      wake = () => void check();
      if (!check()) this.#waiters.add(wake);
    });
    return { promise, dispose };
  }
}
