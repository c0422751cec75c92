// act (PROTOCOL.md §7): the check order, the dispatch of each action with its navigation and
// popup/dialog detection, the fresh observation, the postcondition, and the three-part result.
import type { Browser } from '../browser/browser.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import type { StateRecord, StateStore } from '../observe/state-store.ts';
import type { PrefetchedChanges } from '../observe/observer.ts';
import { AbortedError, Deadline, DeadlineExceededError } from '../util/deadline.ts';
import { DisposableStack, type Disposable } from '../util/disposable.ts';
import { redactSecrets, redactUrl } from '../util/redact.ts';
import { checkExpectation, waitForCondition, type Verdict } from './conditions.ts';
import { checkFrame, NodeResolver } from './identity.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callInWorld } from '../browser/page-function.ts';
import { SETTLE, SETTLE_CAP_MS, SETTLE_QUIET_MS } from '../browser/page-settle.ts';
import { NavigationWatch } from './navigation-watch.ts';
import { ActionError, STALE_OBSERVATION, STALE_REFERENCE, type ActErrorType, type HitDescription } from './outcome.ts';
import type { PathPolicy } from './paths.ts';
import { perform, type PerformOutcome } from './perform.ts';
import { FOCUSING_ACTIONS, NAVIGATING_ACTIONS, refsOf, type Action, type Expectation, type WaitFor } from './types.ts';

export type ActStatus =
  | 'completed'
  | 'verified'
  | 'condition_not_met'
  | 'interrupted'
  | 'stale_observation'
  | 'stale_reference'
  | 'action_failed'
  | 'request_id_conflict'
  | 'outcome_unknown';
export type Execution = 'not_dispatched' | 'dispatched_unknown' | 'completed';
export type Postcondition = 'not_requested' | 'unknown' | 'unmet' | 'met';

export interface ActEvent {
  kind: string;
  seq: number;
  target_id?: string;
  frame_id?: string;
  time: number;
  data: Record<string, unknown>;
}

export interface ActResult {
  status: ActStatus;
  execution: Execution;
  observation: 'captured' | 'unavailable';
  postcondition: Postcondition;
  completed: number[];
  events: ActEvent[];
  fresh_state?: Record<string, unknown>;
  error_type?: string;
  error_text?: string;
  hit?: HitDescription;
  replayed?: true;
  screenshot?: { mime: string; data: string };
}

export interface ActRequest {
  stateId: string;
  targetId?: string;
  actions: Action[];
  expect?: Expectation;
  waitFor?: WaitFor;
  timeoutMs: number;
  screenshot: 'never' | 'on_error' | 'always';
}

export interface ActEnv {
  states: StateStore;
  browser: Browser;
  worlds: IsolatedWorlds;
  secrets: Set<string>;
  uploads: PathPolicy;
  /**
   * Observes `frameId` of the tab as `observe` would and returns the wire observation; changes
   * already taken as the last input settled are not asked for again.
   */
  capture(tab: Tab, frameId: string, signal: AbortSignal, prefetched?: PrefetchedChanges): Promise<Record<string, unknown>>;
  /**
   * Lets the acted frame settle after an input and, in the same round trip, takes its changes for
   * the capture of `root` that follows. Without it the page is settled on its own.
   */
  settleAndTake?(
    tab: Tab,
    root: FrameRecord,
    frame: FrameRecord,
    acknowledged?: Promise<unknown>,
    likelyChanged?: readonly number[],
  ): Promise<PrefetchedChanges | undefined>;
  screenshot?(tab: Tab): Promise<{ mime: string; data: string }>;
  /** Aborted by cancel and session.close. */
  signal: AbortSignal;
  /** The session's event stream (dialogs, popups, downloads… as the session publishes them). */
  events: { subscribe(listener: (event: SessionEventLike) => void): Disposable };
  /** Told each stage as it begins (MCP progress notifications); never given page text or typed text. */
  progress?: (message: string) => void;
}

export interface SessionEventLike {
  seq: number;
  kind: string;
  target_id?: string;
  frame_id?: string;
  time: number;
  data: Record<string, unknown>;
}

/** PROTOCOL.md §7: "dialogs, popups, downloads, navigations seen meanwhile" (file choosers too). */
const ACT_EVENT_KINDS = new Set(['dialog', 'popup', 'download', 'navigation', 'file_chooser']);

class ActRun {
  readonly #env: ActEnv;
  readonly #request: ActRequest;
  readonly #deadline: Deadline;
  readonly #events: ActEvent[] = [];
  readonly #completed: number[] = [];
  readonly #disposables = new DisposableStack();
  #sideEffect = false;
  /** Things the caller should know that are not failures (a navigation that became a download). */
  readonly #notes: string[] = [];
  /** The acted frame's changes, taken as the batch's last input settled, for the capture. */
  #prefetched: PrefetchedChanges | undefined;
  #acknowledged = false;
  #tab: Tab | undefined;

  constructor(env: ActEnv, request: ActRequest) {
    this.#env = env;
    this.#request = request;
    this.#deadline = new Deadline(request.timeoutMs, { signal: env.signal });
  }

  async run(): Promise<ActResult> {
    try {
      return await this.#run();
    } catch (error) {
      return this.#failure(error);
    } finally {
      this.#disposables.dispose();
    }
  }

  async #run(): Promise<ActResult> {
    const { states } = this.#env;
    const request = this.#request;
    // 2. A state this server never issued: refused, and the tab's current state is untouched.
    const record = states.get(request.stateId);
    if (!record && !states.wasIssued(request.stateId)) {
      return this.#result({ type: 'unknown_state', text: `state ${request.stateId} was never issued by this server` });
    }
    // 3. Consumed before any further check: the id can never be used again.
    const before = states.consume(request.stateId);
    // 4.
    if (!record || before !== 'current') {
      const why = before === 'consumed' ? 'it was already used by an act' : 'a newer observation of the tab superseded it';
      return this.#result({ type: 'stale_state', text: `state ${request.stateId} is stale: ${why}; observe again` });
    }
    // 5. Target, frame, loader, document; then every ref and its node.
    const tab = this.#env.browser.tab(record.targetId);
    if (!tab || tab.closed || (request.targetId !== undefined && request.targetId !== record.targetId)) {
      return this.#result({
        type: 'target_changed',
        text: tab && !tab.closed ? `the state was observed on ${record.targetId}, not ${request.targetId}` : 'the observed tab is closed',
      });
    }
    this.#tab = tab;
    this.#watchEvents(tab);
    // A state observed while a dialog was open saw no document: only the dialog can be answered.
    if (record.dialogPending) {
      return this.#result({ type: 'modal_blocked', text: 'the state was observed while a dialog was open: handle it with dialog.handle, then observe' });
    }
    // Navigating needs only the same document; touching nodes needs one that was read.
    const navigationOnly = request.actions.every((action) => NAVIGATING_ACTIONS.has(action.action));
    const frame = checkFrame(tab, record, record.frameId, { readable: !navigationOnly });
    const resolver = new NodeResolver(tab, record, this.#env.worlds);
    for (const action of request.actions) for (const ref of refsOf(action)) resolver.targetOf(ref);
    for (const action of request.actions) for (const ref of refsOf(action)) resolver.frameOf(ref);
    // 6 before the node checks: a dialog pauses the renderer, so a node check would only hang.
    if (tab.dialogs.pending) {
      return this.#result({ type: 'modal_blocked', text: 'a dialog is open: handle it with dialog.handle first' });
    }
    if (tab.fileChooser.pending) {
      return this.#result({ type: 'modal_blocked', text: 'a file chooser is pending: resolve it with file_chooser.resolve first' });
    }
    const checkedInPage = this.#identityCheckedInPage(tab, request.actions[0]!);
    for (const action of request.actions) {
      for (const ref of refsOf(action)) if (ref !== checkedInPage) await this.#deadline.race(resolver.resolve(ref), 'node check');
    }

    // 7. Dispatch, one action at a time.
    let interruption: string | undefined;
    for (let index = 0; index < request.actions.length; index++) {
      const action = request.actions[index]!;
      this.#env.progress?.(`action ${index + 1} of ${request.actions.length}: ${action.action}${refsOf(action).length > 0 ? ` ${refsOf(action).join(' → ')}` : ''}`);
      if (index > 0) {
        // The previous action may have removed or replaced nodes: check this one's again.
        resolver.invalidate();
        for (const ref of refsOf(action)) await this.#deadline.race(resolver.resolve(ref), 'node check');
      }
      const reason = await this.#dispatch(tab, frame, action, resolver, index === request.actions.length - 1);
      if (reason === 'dialog') {
        // Its input opened a dialog and was never acknowledged: not completed, and nothing after.
        interruption = reason;
        break;
      }
      this.#completed.push(index);
      if (reason && index < request.actions.length - 1) {
        interruption = reason;
        break;
      }
    }
    return this.#finish(tab, record, interruption);
  }

  /**
   * The ref of a first action that focuses its node (type, fill, select, press on a ref) is checked
   * by the focusing call itself, in page, before it focuses (perform.ts: focusChecked): one round
   * trip less. Only with the tab already in front, so nothing at all happens before that check.
   */
  #identityCheckedInPage(tab: Tab, first: Action): string | undefined {
    if (!FOCUSING_ACTIONS.has(first.action) || !this.#env.browser.isFront(tab)) return undefined;
    const refs = refsOf(first);
    return refs.length === 1 ? refs[0] : undefined;
  }

  async #dispatch(tab: Tab, frame: FrameRecord, action: Action, resolver: NodeResolver, last: boolean): Promise<string | undefined> {
    const actedFrame = refsOf(action)[0] !== undefined ? resolver.frameOf(refsOf(action)[0]!) : frame;
    const watch = new NavigationWatch(tab, actedFrame);
    const popupsBefore = this.#events.filter((e) => e.kind === 'popup' || e.kind === 'file_chooser').length;
    // After the batch's last input the capture comes next, unless wait_for runs first: the
    // changes taken as the page settles are then still all there is to read.
    const take = last && !this.#request.waitFor;
    let settling: Promise<void> | undefined;
    try {
      const outcome: PerformOutcome = await perform(
        {
          tab,
          frame,
          deadline: this.#deadline,
          secrets: this.#env.secrets,
          uploads: this.#env.uploads,
          target: (ref) => this.#deadline.race(resolver.resolve(ref), 'node check'),
          focusTarget: async (ref) => {
            const found = await this.#deadline.race(resolver.resolveForCheckInPage(ref), 'node check');
            // Another tab took the front meanwhile: bringing this one back must not come first.
            if (found.sameDocument && !this.#env.browser.isFront(tab)) return { target: await this.#deadline.race(resolver.resolve(ref), 'node check') };
            return found;
          },
          settleAlongWithInput: (acknowledged, likelyChanged) => {
            settling ??= this.#settle(tab, frame, actedFrame, take, acknowledged, likelyChanged);
            settling.catch(() => {});
          },
          beginSideEffect: async () => {
            if (this.#sideEffect) return () => {};
            this.#sideEffect = true;
            // Only a mark so far when the tab is already in front: that can be taken back.
            const inFront = this.#env.browser.isFront(tab);
            await this.#env.browser.bringToFront(tab);
            return inFront ? () => (this.#sideEffect = false) : () => {};
          },
        },
        action,
      );
      if (outcome.kind === 'input' && outcome.input === 'dialog') {
        // The input reached the page (its handler opened the dialog) but was never acknowledged.
        this.#acknowledged = false;
        return 'dialog';
      }
      this.#acknowledged = true;
      if (outcome.kind === 'navigation') {
        if (outcome.errorText) {
          throw new ActionError('navigation_failed', outcome.errorText, { sideEffect: true });
        }
        if (outcome.download) {
          this.#notes.push('the navigation became a download; the page stays as it was');
          return undefined;
        }
        if (action.action !== 'navigate' && (await this.#awaitNavigation(watch, actedFrame, true)) === 'download') return undefined;
        return 'navigation';
      }
      await (settling ?? this.#settle(tab, frame, actedFrame, take));
      if (watch.navigating) {
        return (await this.#awaitNavigation(watch, actedFrame, false)) === 'download' ? undefined : 'navigation';
      }
      // A popup or a file chooser takes the next step out of the caller's hands.
      if (this.#events.filter((e) => e.kind === 'popup' || e.kind === 'file_chooser').length > popupsBefore) return 'popup';
      return NAVIGATING_ACTIONS.has(action.action) ? 'navigation' : undefined;
    } finally {
      watch.dispose();
    }
  }

  /**
   * With `acknowledged`, the settle goes out along with an armed input, before that input's
   * acknowledgement (perform.ts: settleAlongWithInput).
   */
  async #settle(
    tab: Tab,
    root: FrameRecord,
    frame: FrameRecord,
    take: boolean,
    acknowledged?: Promise<unknown>,
    likelyChanged: readonly number[] = [],
  ): Promise<void> {
    this.#prefetched = undefined;
    const afterInput = acknowledged !== undefined;
    let settled: Promise<unknown>;
    if (take && this.#env.settleAndTake) {
      settled = this.#env.settleAndTake(tab, root, frame, acknowledged, likelyChanged).then((prefetched) => (this.#prefetched = prefetched));
    } else {
      const context = await this.#env.worlds.contextFor(frame.session, frame.id, frame.loaderId).catch(() => undefined);
      if (context === undefined) return;
      settled = callInWorld(
        frame.session,
        context,
        SETTLE,
        { arguments: [{ value: SETTLE_QUIET_MS }, { value: SETTLE_CAP_MS }, { value: afterInput }], awaitPromise: true },
        { timeoutMs: SETTLE_CAP_MS + 500 },
      );
    }
    const opened = tab.dialogs.whenOpened();
    try {
      // A navigation destroys the context: that is an answer too.
      await this.#deadline.race(Promise.race([settled.catch(() => undefined), opened.promise]), 'settling');
    } finally {
      opened.dispose();
    }
  }

  /** Waits for the started navigation; 'download' when no new document came (the page stays). */
  async #awaitNavigation(watch: NavigationWatch, frame: FrameRecord, required: boolean): Promise<'loaded' | 'download' | undefined> {
    if (!watch.navigating && !required) return undefined;
    this.#env.progress?.('waiting for the navigation to load');
    try {
      const outcome = await watch.outcome(this.#deadline);
      if (outcome.kind === 'download') {
        // Not a failure: the download is what the link does. The document stays as it was.
        this.#notes.push(`the navigation became a download (${redactUrl(outcome.url)}); the page stays as it was`);
        return 'download';
      }
      if (outcome.kind === 'aborted') {
        // Chromium stops loading before it reports a download, so an uncommitted navigation is
        // named once the result is assembled: a download if one began meanwhile.
        this.#notes.push(`the navigation to ${redactUrl(outcome.url)} did not load a new document`);
        return 'download';
      }
      return 'loaded';
    } catch (error) {
      if (error instanceof DeadlineExceededError) {
        // A hung navigation is stopped, never left running behind the result.
        (watch.startedSession ?? frame.session).send('Page.stopLoading').catch(() => {});
      }
      throw error;
    }
  }

  async #finish(tab: Tab, record: StateRecord, interruption: string | undefined): Promise<ActResult> {
    const request = this.#request;
    let postcondition: Postcondition = request.expect || request.waitFor ? 'unknown' : 'not_requested';
    const frameOf = () => tab.frames.get(record.frameId) ?? tab.frames.get(tab.mainFrameId);
    let waitVerdict: Verdict | undefined;
    if (request.waitFor && !interruption) {
      this.#env.progress?.('waiting for the wait_for condition');
      waitVerdict = await waitForCondition(tab, frameOf, this.#env.worlds, request.waitFor, this.#deadline);
    }
    this.#env.progress?.('observing the page');
    const fresh = await this.#capture(tab, record);
    if (!interruption && (request.expect || request.waitFor)) {
      let verdict: Verdict = waitVerdict ?? 'met';
      if (request.expect && verdict === 'met') {
        const frame = frameOf();
        verdict = fresh && frame ? await checkExpectation(tab, frame, this.#env.worlds, request.expect) : 'unknown';
      }
      postcondition = verdict;
    }
    const status: ActStatus = interruption
      ? 'interrupted'
      : postcondition === 'not_requested'
        ? 'completed'
        : postcondition === 'met'
          ? 'verified'
          : 'condition_not_met';
    const result: ActResult = {
      status,
      execution: this.#acknowledged && interruption !== 'dialog' ? 'completed' : this.#sideEffect ? 'dispatched_unknown' : 'not_dispatched',
      observation: fresh ? 'captured' : 'unavailable',
      postcondition,
      completed: [...this.#completed],
      events: this.#events,
    };
    if (fresh) result.fresh_state = fresh;
    if (interruption) {
      result.error_text =
        interruption === 'dialog'
          ? 'a dialog opened; it stays open for dialog.handle'
          : interruption === 'popup'
            ? 'a popup opened; the remaining actions did not run'
            : 'the page navigated; the remaining actions did not run';
    }
    if (postcondition === 'unmet') result.error_text = 'the postcondition does not hold';
    if (!result.error_text && this.#notes.length > 0) {
      const downloaded = this.#events.some((e) => e.kind === 'download' && e.data.state === 'started');
      result.error_text = downloaded
        ? 'the navigation became a download; the page stays as it was'
        : `${this.#notes.join('; ')} (no content, cancelled, or a download)`;
    }
    if (request.screenshot === 'always') await this.#attachScreenshot(result, tab);
    return result;
  }

  async #capture(tab: Tab, record: StateRecord): Promise<Record<string, unknown> | undefined> {
    if (tab.closed) return undefined;
    const frameId = tab.frames.get(record.frameId) ? record.frameId : tab.mainFrameId;
    const prefetched = this.#prefetched;
    this.#prefetched = undefined;
    try {
      return await this.#env.capture(tab, frameId, this.#deadline.signal, prefetched);
    } catch {
      return undefined;
    }
  }

  async #attachScreenshot(result: ActResult, tab: Tab): Promise<void> {
    if (!this.#env.screenshot || tab.closed || tab.dialogs.pending) return;
    try {
      result.screenshot = await this.#env.screenshot(tab);
    } catch {
      // a screenshot is a courtesy; its failure does not change the outcome
    }
  }

  /** The session's events that concern this tab (or a popup it opened), for the result. */
  #watchEvents(tab: Tab): void {
    this.#disposables.add(
      this.#env.events.subscribe((event) => {
        const concerns = event.target_id === tab.targetId || event.data.opener_id === tab.targetId;
        if (!concerns || !ACT_EVENT_KINDS.has(event.kind)) return;
        this.#events.push({
          kind: event.kind,
          seq: event.seq,
          ...(event.target_id ? { target_id: event.target_id } : {}),
          ...(event.frame_id ? { frame_id: event.frame_id } : {}),
          time: event.time,
          data: event.data,
        });
      }),
    );
  }

  async #failure(error: unknown): Promise<ActResult> {
    if (error instanceof AbortedError || this.#env.signal.aborted) {
      return { ...(await this.#result({ type: 'operation_cancelled', text: 'the act was cancelled; its outcome is unknown' })), status: 'outcome_unknown' };
    }
    if (error instanceof DeadlineExceededError) {
      return this.#result({ type: 'timeout', text: `${error.message}` }, true);
    }
    if (error instanceof ActionError) {
      return this.#result({ type: error.type, text: error.message, ...(error.hit ? { hit: error.hit } : {}) }, error.sideEffect);
    }
    return this.#result({ type: 'action_failed', text: `unexpected failure: ${(error as Error)?.message ?? String(error)}` }, true);
  }

  /** A result for an act that stopped on an error (before or during dispatch). */
  async #result(failure: { type: ActErrorType; text: string; hit?: HitDescription }, sideEffect = false): Promise<ActResult> {
    const type = failure.type;
    const dispatched = this.#sideEffect || sideEffect;
    const status: ActStatus = STALE_OBSERVATION.has(type)
      ? 'stale_observation'
      : STALE_REFERENCE.has(type)
        ? 'stale_reference'
        : type === 'operation_cancelled'
          ? 'outcome_unknown'
          : 'action_failed';
    const result: ActResult = {
      status,
      execution: dispatched ? 'dispatched_unknown' : this.#completed.length > 0 ? 'completed' : 'not_dispatched',
      observation: 'unavailable',
      postcondition: this.#request.expect || this.#request.waitFor ? 'unknown' : 'not_requested',
      completed: [...this.#completed],
      events: this.#events,
      error_type: type === 'navigation_failed' ? 'action_failed' : type,
      error_text: redactSecrets(failure.text, this.#env.secrets),
    };
    // The covering element's name is page text, which may show a typed secret.
    if (failure.hit) result.hit = { ...failure.hit, name: redactSecrets(failure.hit.name, this.#env.secrets) };
    // After input began, the page may have changed: a fresh observation lets the caller go on.
    const tab = this.#tab;
    if (tab && dispatched && !this.#env.signal.aborted) {
      const record = this.#env.states.get(this.#request.stateId);
      if (record) {
        const fresh = await this.#capture(tab, record);
        if (fresh) {
          result.fresh_state = fresh;
          result.observation = 'captured';
        }
      }
    }
    if (tab && (this.#request.screenshot === 'always' || this.#request.screenshot === 'on_error')) await this.#attachScreenshot(result, tab);
    return result;
  }
}

export function runAct(env: ActEnv, request: ActRequest): Promise<ActResult> {
  return new ActRun(env, request).run();
}
