// Did the input (or a history command) start a navigation of the acted frame or one of its
// ancestors, and if so: wait for DOMContentLoaded of the *new* loader, notice a download instead,
// an abort (204, a cancelled navigation), or a renderer crash (the navigation dies with it and no
// further event comes). Listening starts before the input is sent.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { Deadline } from '../util/deadline.ts';
import { DisposableStack } from '../util/disposable.ts';

export type LoadOutcome =
  | { kind: 'loaded'; frameId: string; loaderId: string; url: string }
  | { kind: 'same_document'; frameId: string; url: string }
  | { kind: 'download'; frameId: string; url: string; suggestedFilename: string }
  | { kind: 'aborted'; frameId: string; url: string }
  | { kind: 'crashed'; frameId: string; url: string };

interface Started {
  frameId: string;
  loaderId: string;
  url: string;
  session: CdpSession;
}

export class NavigationWatch {
  readonly #frameIds: Set<string>;
  readonly #pageSession: CdpSession;
  readonly #disposables = new DisposableStack();
  readonly #domContentLoaded = new Set<string>(); // loaderIds seen
  readonly #committed = new Set<string>(); // loaderIds whose document committed
  #started: Started | undefined;
  #requested = false;
  #outcome: LoadOutcome | undefined;
  #wake: (() => void) | undefined;
  #crashed = false;

  /** Watches `frame` and its ancestors (a click may navigate the top frame, target=_top). */
  constructor(tab: Tab, frame: FrameRecord) {
    const frames: FrameRecord[] = [];
    for (let f: FrameRecord | undefined = frame; f; f = f.parentId ? tab.frames.get(f.parentId) : undefined) frames.push(f);
    this.#frameIds = new Set(frames.map((f) => f.id));
    this.#pageSession = tab.session;
    const sessions = new Set(frames.map((f) => f.session));
    sessions.add(tab.session);
    for (const session of sessions) this.#watch(session);
  }

  /** A navigation of a watched frame has been requested or has started. */
  get navigating(): boolean {
    return this.#requested || this.#started !== undefined || this.#outcome !== undefined;
  }

  /** Resolves when the started navigation has an outcome (call only when `navigating`). */
  async outcome(deadline: Deadline): Promise<LoadOutcome> {
    // A navigation asked for (reload, history) but not begun when the renderer died never begins.
    if (!this.#outcome && this.#crashed) this.#settleCrashed();
    if (!this.#outcome) {
      await deadline.race(
        new Promise<void>((resolve) => {
          this.#wake = resolve;
          if (this.#outcome) resolve();
        }),
        'waiting for the navigation to reach DOMContentLoaded',
      );
    }
    return this.#outcome!;
  }

  /** The frame that started navigating, for stopping it at the deadline. */
  get startedSession(): CdpSession | undefined {
    return this.#started?.session;
  }

  dispose(): void {
    this.#disposables.dispose();
  }

  #settleCrashed(): void {
    this.#settle({ kind: 'crashed', frameId: this.#started?.frameId ?? '', url: this.#started?.url ?? '' });
  }

  #settle(outcome: LoadOutcome): void {
    if (this.#outcome) return;
    this.#outcome = outcome;
    this.#wake?.();
  }

  #watch(session: CdpSession): void {
    const mine = (frameId: string) => this.#frameIds.has(frameId);
    this.#disposables.add(
      session.on('Page.frameRequestedNavigation', (e) => {
        if (mine(e.frameId) && e.disposition === 'currentTab') this.#requested = true;
      }),
    );
    this.#disposables.add(
      session.on('Page.frameStartedNavigating', (e) => {
        if (!mine(e.frameId)) return;
        if (e.navigationType === 'sameDocument' || e.navigationType === 'historySameDocument') {
          this.#requested = true; // settles on navigatedWithinDocument
          return;
        }
        this.#started = { frameId: e.frameId, loaderId: e.loaderId, url: e.url, session };
        if (this.#domContentLoaded.has(e.loaderId)) this.#settle({ kind: 'loaded', frameId: e.frameId, loaderId: e.loaderId, url: e.url });
      }),
    );
    this.#disposables.add(
      session.on('Page.navigatedWithinDocument', (e) => {
        if (mine(e.frameId) && !this.#started) this.#settle({ kind: 'same_document', frameId: e.frameId, url: e.url });
      }),
    );
    this.#disposables.add(
      session.on('Page.lifecycleEvent', (e) => {
        if (!mine(e.frameId) || e.name !== 'DOMContentLoaded') return;
        this.#domContentLoaded.add(e.loaderId);
        const started = this.#started;
        if (started && started.frameId === e.frameId && started.loaderId === e.loaderId) {
          this.#settle({ kind: 'loaded', frameId: e.frameId, loaderId: e.loaderId, url: started.url });
        }
      }),
    );
    this.#disposables.add(
      session.on('Page.downloadWillBegin', (e) => {
        if (mine(e.frameId)) this.#settle({ kind: 'download', frameId: e.frameId, url: e.url, suggestedFilename: e.suggestedFilename });
      }),
    );
    this.#disposables.add(
      session.on('Inspector.targetCrashed', () => {
        // Only the renderer of the navigating frame (the page's until a navigation has begun).
        if (session !== (this.#started?.session ?? this.#pageSession)) return;
        this.#crashed = true;
        if (this.#started || this.#requested || this.#wake) this.#settleCrashed();
      }),
    );
    this.#disposables.add(
      session.on('Page.frameNavigated', (e) => {
        const started = this.#started;
        if (started && started.frameId === e.frame.id && started.loaderId === e.frame.loaderId) this.#committed.add(e.frame.loaderId);
      }),
    );
    this.#disposables.add(
      session.on('Page.frameStoppedLoading', (e) => {
        // Stopped without committing the new document: aborted (204, cancelled, replaced). A
        // committed one that stops before its DOMContentLoaded has lost its renderer: the crash
        // event comes right behind.
        const started = this.#started;
        if (
          started && started.frameId === e.frameId && !this.#domContentLoaded.has(started.loaderId) &&
          !this.#committed.has(started.loaderId)
        ) {
          this.#settle({ kind: 'aborted', frameId: e.frameId, url: started.url });
        }
      }),
    );
  }
}
