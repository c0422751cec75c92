// One page target: its CDP session, its frames (across out-of-process iframes) and what the
// browser last told us of its URL and title.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { AttachedSession } from '../cdp/connection.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import { type Disposable, DisposableStack } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';
import { DialogTracker } from './dialogs.ts';
import { DocumentLoads, type LoadWait } from './document-loads.ts';
import { FileChooserTracker } from './file-chooser.ts';
import { FrameTree } from './frame-tree.ts';

export interface ConsoleMessage {
  level: string;
  text: string;
  frameId?: string;
}

export interface TabEvents extends Record<string, unknown> {
  console: ConsoleMessage;
  /** A frame committed a new document (or navigated within one). */
  navigated: { frameId: string; loaderId: string | undefined; url: string; sameDocument: boolean };
  /** The page's renderer died (the tab stays, with its session, until closed). */
  crashed: undefined;
  closed: { reason: string };
}

/**
 * Enables what every page or OOPIF session needs and lets a paused target run. Sent pipelined,
 * never awaited one by one: a popup that keeps its opener blocks the opener's input until it is
 * resumed, and awaiting Page.enable before runIfWaitingForDebugger can hang (CDP-NOTES §9). Page
 * must be enabled before any script runs, or a dialog would wedge the tab (CDP-NOTES §7).
 */
export function initTargetSession(
  session: CdpSession,
  context?: ContextSetup,
  target: { type: 'page' | 'iframe'; url: string } = { type: 'page', url: '' },
): Promise<Cdp.Page.GetFrameTreeResult> {
  const steps: Promise<unknown>[] = [
    session.send('Page.enable'),
    ...(context?.setup(session, target.type, target.url) ?? []),
    session.send('Page.setLifecycleEventsEnabled', { enabled: true }),
    // Console messages and uncaught exceptions become events.
    session.send('Runtime.enable'),
    // A click on a file input must never open a native chooser nobody can see (CDP-NOTES §8).
    session.send('Page.setInterceptFileChooserDialog', { enabled: true }),
    session.send('Target.setAutoAttach', autoAttachParams(context)),
    session.send('Runtime.runIfWaitingForDebugger'),
  ];
  const tree = session.send('Page.getFrameTree');
  return Promise.all([...steps, tree]).then(() => tree);
}

/**
 * What a page or iframe session auto-attaches: its out-of-process iframes, its dedicated workers,
 * and what its context asks for. Workers must be attached: with waitForDebuggerOnStart, Chromium
 * keeps a dedicated worker the filter leaves out paused forever (measured on 156: its script loads,
 * nothing of it runs); attached, it is resumed at once (Browser) and runs.
 */
export function autoAttachParams(context: ContextSetup | undefined): Cdp.Target.SetAutoAttachParams {
  const types = [...new Set(['iframe', 'worker', ...(context?.attachTypes() ?? [])])];
  return { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: types.map((type) => ({ type })) };
}

/**
 * Extra commands for a new target (viewport, user agent, request interception), pipelined before
 * it is resumed. `url` is the target's URL when it attached.
 */
export type TargetSetup = (session: CdpSession, targetType: string, url: string) => Promise<unknown>[];

/** Who reported a renderer crash: the page's own session, or the browser. */
export type CrashReporter = 'page' | 'browser';

/** What a tab needs of the browser connection to end the calls a crashed renderer holds. */
export interface PendingCalls {
  /** A mark in the order of calls: every call sent later comes at or after it. */
  mark(): number;
  /** Fails the calls pending on the session that were sent before `mark`. */
  failBefore(sessionId: string, mark: number): void;
}

/** What a browser context asks of every target in it. */
export interface ContextSetup {
  readonly setup: TargetSetup;
  /** Target types its pages and iframes auto-attach besides iframes and workers (`service_worker`). */
  attachTypes(): readonly string[];
}

export class Tab {
  readonly targetId: string;
  readonly browserContextId: string | undefined;
  readonly openerId: string | undefined;
  readonly session: CdpSession;
  readonly frames = new FrameTree();
  readonly dialogs = new DialogTracker();
  readonly fileChooser = new FileChooserTracker();
  /** Where each frame's document stands in its loading (ready_state). */
  readonly loads = new DocumentLoads();
  readonly events = new Emitter<TabEvents>();
  readonly ready: Promise<void>;
  url: string;
  title: string;
  readonly #disposables = new DisposableStack();
  #closed = false;
  #crashed = false;
  // One renderer crash is reported twice, by the page's session (Inspector.targetCrashed) and by
  // the browser (Target.targetCrashed), in either order and, on a busy machine, far enough apart
  // for a client to see the crash and send a recovering navigate in between. The first report
  // ends what was pending then; the other one must not touch what was sent after it.
  #lastCrash: { mark: number; reporters: Set<CrashReporter> } | undefined;
  readonly #pendingCalls: PendingCalls | undefined;

  readonly #context: ContextSetup | undefined;

  constructor(attached: AttachedSession, options: { context?: ContextSetup; pendingCalls?: PendingCalls } = {}) {
    const context = options.context;
    const info = attached.targetInfo;
    this.targetId = info.targetId;
    this.browserContextId = info.browserContextId;
    this.openerId = info.openerId;
    this.session = attached.session;
    this.url = info.url;
    this.title = info.title;
    this.#context = context;
    this.#pendingCalls = options.pendingCalls;
    this.#watchFrames(this.session);
    this.#disposables.add(this.session.onDetached((reason) => this.markClosed(reason)));
    this.#disposables.add(this.session.on('Inspector.targetCrashed', () => this.reportCrash('page')));
    this.ready = initTargetSession(this.session, context, { type: 'page', url: info.url }).then(
      ({ frameTree }) => this.frames.loadTree(this.session, frameTree, false),
      (error: unknown) => {
        // A tab closed during its own start-up is simply gone; anything else is a real fault.
        if (!(isCdpError(error) && error.isTargetGone)) throw error;
      },
    );
    this.ready.catch(() => {});
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The renderer crashed and no new document has committed since. */
  get crashed(): boolean {
    return this.#crashed;
  }

  /**
   * A report that the renderer died. The first report of a crash marks the tab crashed, emits
   * `crashed` and fails what was pending on it (never to be answered); the other reporter's report
   * of the same crash changes nothing. A second report from the same reporter is a new crash.
   * True when this report was the first of its crash.
   */
  reportCrash(reporter: CrashReporter): boolean {
    const last = this.#lastCrash;
    if (last && !last.reporters.has(reporter)) {
      last.reporters.add(reporter);
      return false;
    }
    const mark = this.#pendingCalls?.mark() ?? Infinity;
    this.#lastCrash = { mark, reporters: new Set([reporter]) };
    this.#crashed = true;
    // A dialog or chooser dies with its document; Chromium need not say so.
    this.dialogs.forget();
    this.fileChooser.forget();
    const sessions = new Set([this.session, ...this.frames.list().map((frame) => frame.session)]);
    for (const session of sessions) this.#pendingCalls?.failBefore(session.id, mark);
    this.events.emit('crashed', undefined);
    return true;
  }

  /** Settles when the renderer crashes; at once if it has and no document committed since. */
  whenCrashed(): { promise: Promise<void>; dispose(): void } {
    if (this.#crashed) return { promise: Promise.resolve(), dispose() {} };
    let subscription: Disposable | undefined;
    const promise = new Promise<void>((resolve) => {
      subscription = this.events.on('crashed', () => resolve());
    });
    return { promise, dispose: () => subscription?.dispose() };
  }

  /**
   * Waits for the load event of document `loaderId` in `frameId` within the bound after its
   * DOMContentLoaded and `untilMs` (DocumentLoads.whenLoaded); a dialog (it holds the load back), a
   * renderer crash or the tab closing end the wait at once as `interrupted`.
   */
  async whenLoaded(frameId: string, loaderId: string, untilMs: number): Promise<LoadWait | { kind: 'interrupted' }> {
    const loaded = this.loads.whenLoaded(frameId, loaderId, untilMs);
    const opened = this.dialogs.whenOpened();
    const crashed = this.whenCrashed();
    let closed: Disposable | undefined;
    const interrupted = { kind: 'interrupted' as const };
    try {
      return await Promise.race([
        loaded.promise,
        opened.promise.then(() => interrupted),
        crashed.promise.then(() => interrupted),
        new Promise<typeof interrupted>((resolve) => {
          if (this.#closed) resolve(interrupted);
          closed = this.events.on('closed', () => resolve(interrupted));
        }),
      ]);
    } finally {
      loaded.dispose();
      opened.dispose();
      crashed.dispose();
      closed?.dispose();
    }
  }

  get mainFrameId(): string {
    return this.frames.mainFrameId ?? this.targetId;
  }

  /** An out-of-process iframe of this tab attached (directly or nested). */
  adoptFrameSession(attached: AttachedSession): void {
    const { session, targetInfo } = attached;
    this.frames.adoptCrossProcess(targetInfo.targetId, targetInfo.parentFrameId, session);
    this.#watchFrames(session);
    const detached = session.onDetached(() => this.frames.dropSession(session));
    this.#disposables.add(detached);
    initTargetSession(session, this.#context, { type: 'iframe', url: targetInfo.url }).then(
      ({ frameTree }) => this.frames.loadTree(session, frameTree, true),
      () => {
        // An iframe that vanished during its start-up needs no further bookkeeping.
      },
    );
  }

  /** The page's session and those of its out-of-process iframes. */
  sessions(): CdpSession[] {
    return [...new Set([this.session, ...this.frames.list().map((frame) => frame.session)])];
  }

  /**
   * Re-reads the frame tree of every session of the tab (page and OOPIFs), so a listing reflects
   * frames whose events are still in flight. A session that does not answer within the budget
   * (a dialog pauses its renderer) keeps what events told us.
   */
  async refreshFrames(budgetMs: number): Promise<void> {
    const sessions = new Set(this.frames.list().map((frame) => frame.session));
    sessions.add(this.session);
    await Promise.all(
      [...sessions].map(async (session) => {
        try {
          const { frameTree } = await session.sendWith({ timeoutMs: budgetMs }, 'Page.getFrameTree');
          this.frames.loadTree(session, frameTree, session !== this.session);
        } catch {
          // Keep the event-driven view for this session.
        }
      }),
    );
  }

  updateInfo(info: Cdp.Target.TargetInfo): void {
    this.url = info.url;
    this.title = info.title;
  }

  markClosed(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#disposables.dispose();
    this.events.emit('closed', { reason });
    this.events.removeAll();
  }

  #watchFrames(session: CdpSession): void {
    const frames = this.frames;
    for (const subscription of this.dialogs.watch(session)) this.#disposables.add(subscription);
    for (const subscription of this.fileChooser.watch(session)) this.#disposables.add(subscription);
    this.#disposables.add(this.loads.watch(session));
    this.#disposables.add(
      session.on('Runtime.consoleAPICalled', (e) => {
        const text = e.args.map((arg) => (arg.value !== undefined ? String(arg.value) : (arg.description ?? arg.type))).join(' ');
        this.events.emit('console', { level: e.type === 'warning' ? 'warn' : e.type, text });
      }),
    );
    this.#disposables.add(
      session.on('Runtime.exceptionThrown', (e) => {
        const details = e.exceptionDetails;
        this.events.emit('console', { level: 'error', text: details.exception?.description ?? details.text });
      }),
    );
    this.#disposables.add(session.on('Page.frameAttached', (e) => frames.onFrameAttached(session, e.frameId, e.parentFrameId)));
    this.#disposables.add(
      session.on('Page.frameDetached', (e) => {
        frames.onFrameDetached(e.frameId, e.reason);
        if (e.reason !== 'swap') this.loads.forget(e.frameId);
      }),
    );
    this.#disposables.add(session.on('Page.frameStartedLoading', (e) => frames.onLoading(e.frameId, true)));
    this.#disposables.add(session.on('Page.frameStoppedLoading', (e) => frames.onLoading(e.frameId, false)));
    this.#disposables.add(
      session.on('Page.frameNavigated', (e) => {
        if (!e.frame.parentId) this.#crashed = false; // a new document, in a new renderer
        frames.onFrameNavigated(session, e.frame);
        this.events.emit('navigated', { frameId: e.frame.id, loaderId: e.frame.loaderId, url: e.frame.url, sameDocument: false });
      }),
    );
    this.#disposables.add(
      session.on('Page.navigatedWithinDocument', (e) => {
        frames.onNavigatedWithinDocument(e.frameId, e.url);
        this.events.emit('navigated', { frameId: e.frameId, loaderId: undefined, url: e.url, sameDocument: true });
      }),
    );
  }
}
