// act (PROTOCOL.md §7): the check order, the dispatch of each action with its navigation and
// popup/dialog detection, the fresh observation, the postcondition, and the three-part result.
import type { Browser } from '../browser/browser.ts';
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import type { StateRecord } from '../observe/state-store.ts';
import type { ReadAhead, SettleOptions } from '../observe/settle.ts';
import { type CapturedObservation, captureObservation, type ObservingSession } from '../observe/capture.ts';
import { AbortedError, Deadline, DeadlineExceededError } from '../util/deadline.ts';
import { type Disposable, DisposableStack } from '../util/disposable.ts';
import { redactSecrets, redactUrl } from '../util/redact.ts';
import { armCondition, type ArmedCondition, checkExpectation, heldSinceArmed, waitForCondition } from './conditions.ts';
import { checkFrame, NodeResolver } from './identity.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { LOAD_WAIT_AFTER_DCL_MS } from '../browser/document-loads.ts';
import { CRASHED_DURING_NAVIGATION } from '../browser/navigation.ts';
import { settleFrame } from '../browser/page-settle.ts';
import { NavigationWatch } from './navigation-watch.ts';
import {
  type ActEnding,
  type ActErrorType,
  ActionError,
  type Blocker,
  type HitDescription,
  type NodeToName,
  type Observation,
  type ReportedErrorType,
  summarize,
} from './outcome.ts';
import type { PathPolicy } from './paths.ts';
import { perform, type PerformOutcome } from './perform.ts';
import { NOTHING_BEGUN, type SideEffects, StepFailed, StepProgress } from './step-progress.ts';
import { type Action, type Expectation, FOCUSING_ACTIONS, NAVIGATING_ACTIONS, refsOf, type WaitFor } from './types.ts';
import type { Screenshot } from '../capture/screenshot.ts';
import type { RequestVerdict } from '../browser/request-guard.ts';
import type { SecretCheck } from '../util/secrets.ts';
import {
  ACT_EVENT_KINDS,
  actFailed,
  type ActStatus,
  type EventKind,
  type Execution,
  type Postcondition,
  type SessionEvent,
} from '../wire/index.ts';

export type { ActStatus, Execution, Postcondition };

/** A session event of a kind an act reports (dialogs, popups, downloads, navigations, file choosers). */
export type ActSessionEvent = SessionEvent<(typeof ACT_EVENT_KINDS)[number]>;

export type { ReportedErrorType };

/** What an act did, in the act layer's terms; the RPC layer words it for the wire. */
export interface ActOutcome {
  status: ActStatus;
  execution: Execution;
  observation: Observation;
  postcondition: Postcondition;
  completed: number[];
  events: ActSessionEvent[];
  freshState?: CapturedObservation;
  errorType?: ReportedErrorType;
  errorText?: string;
  hit?: HitDescription;
  screenshot?: Pick<Screenshot, 'mime' | 'data'>;
}

export interface ActRequest {
  stateId: string;
  targetId?: string;
  actions: Action[];
  expect?: Expectation;
  waitFor?: WaitFor;
  timeoutMs: number;
  screenshot: 'never' | 'on_error' | 'always';
  /** How the fresh observation is read (act's `observe` param). */
  observe?: FreshObservationShape;
}

export interface FreshObservationShape {
  maxElements?: number;
  /** Observe only this ref's subtree, when it is a ref of `rootState` (else the whole frame). */
  rootRef?: string;
  rootState?: string;
}

export interface ActEnv {
  /** The session's states, and each tab's refs and reader: the fresh observation reads and issues with them. */
  session: ObservingSession;
  browser: Browser;
  worlds: IsolatedWorlds;
  secrets: Set<string>;
  uploads: PathPolicy;
  /** The value of a configured secret if it may be typed into a document of `origin`. */
  secret(name: string, origin: string): SecretCheck;
  /** The domain policy's verdict on a URL (navigate is refused before it starts). */
  checkUrl(url: string): RequestVerdict;
  /** The rule that refused the tab's latest blocked document request (a redirect), if any. */
  blockedNavigationRule?(tab: Tab): string | undefined;
  screenshot?(tab: Tab): Promise<Pick<Screenshot, 'mime' | 'data'>>;
  /** Aborted by cancel and session.close. */
  signal: AbortSignal;
  /** The session's event stream (dialogs, popups, downloads… as the session publishes them). */
  events: { subscribe(listener: (event: SessionEventLike) => void): Disposable };
  /** Told each stage as it begins (MCP progress notifications); never given page text or typed text. */
  progress?: (message: string) => void;
}

/**
 * One settle after an input (ActRun.#settle): `take` after the batch's last input (unless
 * wait_for runs first), to read ahead for the capture of `root`.
 */
type SettleRequest = Pick<SettleOptions, 'tab' | 'root' | 'frame' | 'acknowledged' | 'readAheadIds'> & { take: boolean };

/** How one action ended: what stops the batch, what was read ahead, where its side effects stand. */
interface Dispatched {
  interruption?: Interruption;
  readAhead?: ReadAhead;
  sideEffects: SideEffects;
}

export type SessionEventLike = SessionEvent;

/** What stopped a batch before its end (PROTOCOL.md §7 `interrupted`). */
type Interruption = 'dialog' | 'popup' | 'navigation';

const INTERRUPTION_TEXT: Record<Interruption, string> = {
  dialog: 'a dialog opened; it stays open for dialog.handle',
  popup: 'a popup opened; the remaining actions did not run',
  navigation: 'the page navigated; the remaining actions did not run',
};

/**
 * What a wait for the load event leaves for the observation that follows it: the capture keeps
 * this much of the act's budget.
 */
const LOAD_WAIT_RESERVE_MS = 1_000;

/**
 * Why an act fell short. `check`: a check or the step's own failure (an ActionError) refused a
 * step, not a timeout, a cancel or a loss; `sideEffect`: that step had begun one.
 */
interface Failure {
  type: ActErrorType;
  text: string;
  check?: boolean;
  sideEffect?: boolean;
  hit?: HitDescription;
  blocker?: Blocker;
}

/**
 * Refusals before input that carry no fresh observation (PROTOCOL.md §7): the state was never
 * issued, or the params are wrong (nothing the page did).
 */
const UNOBSERVED_REFUSALS: ReadonlySet<ActErrorType> = new Set(['unknown_state', 'invalid_params']);

/** PROTOCOL.md §7: "dialogs, popups, downloads, navigations seen meanwhile" (file choosers too). */
const REPORTED_KINDS: ReadonlySet<EventKind> = new Set(ACT_EVENT_KINDS);

function isReported(event: SessionEventLike): event is ActSessionEvent {
  return REPORTED_KINDS.has(event.kind);
}

class ActRun {
  readonly #env: ActEnv;
  readonly #request: ActRequest;
  readonly #deadline: Deadline;
  readonly #events: ActSessionEvent[] = [];
  readonly #completed: number[] = [];
  readonly #disposables = new DisposableStack();
  /** Things the caller should know that are not failures (a navigation that became a download). */
  readonly #notes: string[] = [];
  #tab: Tab | undefined;
  /** Rejects once the acted tab is lost (closed, crashed, the browser gone). */
  #lost: Promise<never> = new Promise<never>(() => {});
  /** wait_for's watch, armed before the first input. */
  #armed: ArmedCondition | undefined;

  constructor(env: ActEnv, request: ActRequest) {
    this.#env = env;
    this.#request = request;
    this.#deadline = new Deadline(request.timeoutMs, { signal: env.signal });
  }

  async run(): Promise<ActOutcome> {
    try {
      return await this.#run();
    } catch (error) {
      // A step's failure says how far its side effects got; any other came before the first.
      if (error instanceof StepFailed) return this.#result(this.#classify(error.cause), error.sideEffects);
      return this.#result(this.#classify(error), NOTHING_BEGUN);
    } finally {
      this.#disposables.dispose();
    }
  }

  async #run(): Promise<ActOutcome> {
    const { states } = this.#env.session;
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
      // The tab the state was of gets a fresh observation with the refusal (§7): the next call acts on it.
      const staleTab = this.#env.browser.tab(record?.targetId ?? request.targetId ?? '');
      if (staleTab && !staleTab.closed) this.#tab = staleTab;
      const why = before === 'consumed' ? 'it was already used by an act' : 'a newer observation of the tab superseded it';
      return this.#result({ type: 'stale_state', text: `state ${request.stateId} is stale: ${why}; observe again` });
    }
    // 5. Target, frame, loader, document; then every ref and its node.
    const tab = this.#env.browser.tab(record.targetId);
    if (!tab || tab.closed || (request.targetId !== undefined && request.targetId !== record.targetId)) {
      if (tab && !tab.closed) this.#tab = tab;
      return this.#result({
        type: 'target_changed',
        text: tab && !tab.closed ? `the state was observed on ${record.targetId}, not ${request.targetId}` : 'the observed tab is closed',
      });
    }
    this.#tab = tab;
    this.#watchEvents(tab);
    this.#watchLoss(tab);
    // A state observed while a dialog was open saw no document: only the dialog can be answered.
    if (record.dialogPending) {
      return this.#result({
        type: 'modal_blocked',
        text: 'the state was observed while a dialog was open: handle it with dialog.handle, then observe',
      });
    }
    // Navigating needs only the same document; touching nodes needs one that was read.
    const navigationOnly = request.actions.every((action) => NAVIGATING_ACTIONS.has(action.action));
    const frame = checkFrame(tab, record, record.frameId, { readable: !navigationOnly });
    const resolver = new NodeResolver(tab, record, this.#env.worlds);
    for (const action of request.actions) for (const ref of refsOf(action)) resolver.targetOf(ref);
    for (const action of request.actions) for (const ref of refsOf(action)) resolver.frameOf(ref);
    // An app whose scripts arrive after DOMContentLoaded listens only once they ran: the first input
    // waits for the load event of the documents it goes to (a navigation replaces them anyway).
    let loadNote: string | undefined;
    if (!navigationOnly) {
      const acted = new Set([frame, ...request.actions.flatMap((action) => refsOf(action).map((ref) => resolver.frameOf(ref)))]);
      for (const each of acted) loadNote ??= await this.#awaitLoad(tab, each, 'the input went ahead');
    }
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

    // A condition the act makes true only for a moment is over before the act settles: its watch
    // is armed before the first input (a navigation replaces the document, and the wait with it).
    if (request.waitFor && !navigationOnly) {
      const armed = await this.#deadline.race(armCondition(frame, this.#env.worlds, request.waitFor), 'arming wait_for');
      if (armed) {
        this.#armed = armed;
        // Ended on every path, so that no watch outlives its act in the page.
        this.#disposables.defer(() => void heldSinceArmed(armed, tab.frames.get(armed.frameId), this.#env.worlds));
      }
    }
    // 7. Dispatch, one action at a time.
    let interruption: Interruption | undefined;
    let readAhead: ReadAhead | undefined;
    let sideEffects = NOTHING_BEGUN;
    for (let index = 0; index < request.actions.length; index++) {
      const action = request.actions[index]!;
      this.#env.progress?.(
        `action ${index + 1} of ${request.actions.length}: ${action.action}${
          refsOf(action).length > 0 ? ` ${refsOf(action).join(' → ')}` : ''
        }`,
      );
      if (index > 0) {
        // The previous action may have removed or replaced nodes: check this one's again.
        resolver.invalidate();
        try {
          for (const ref of refsOf(action)) await this.#deadline.race(resolver.resolve(ref), 'node check');
        } catch (error) {
          throw new StepFailed(error, sideEffects);
        }
      }
      const dispatched = await this.#dispatch(tab, frame, action, resolver, index === request.actions.length - 1, sideEffects);
      const reason = dispatched.interruption;
      readAhead = dispatched.readAhead;
      sideEffects = dispatched.sideEffects;
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
    return this.#finish(
      tab,
      record,
      { ...(interruption ? { interruption } : {}), ...(readAhead ? { readAhead } : {}), sideEffects },
      loadNote,
    );
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

  /** `before`: where the act's side effects stood as this action began. Throws StepFailed. */
  async #dispatch(
    tab: Tab,
    frame: FrameRecord,
    action: Action,
    resolver: NodeResolver,
    last: boolean,
    before: SideEffects,
  ): Promise<Dispatched> {
    const step = new StepProgress(before);
    const actedFrame = refsOf(action)[0] !== undefined ? resolver.frameOf(refsOf(action)[0]!) : frame;
    const watch = new NavigationWatch(tab, actedFrame);
    const popupsBefore = this.#events.filter((e) => e.kind === 'popup' || e.kind === 'file_chooser').length;
    // After the batch's last input the capture comes next, unless wait_for runs first: the
    // changes taken as the page settles are then still all there is to read.
    const take = last && !this.#request.waitFor;
    try {
      const outcome: PerformOutcome = await perform(
        {
          tab,
          platform: this.#env.browser.platform,
          frame,
          deadline: this.#deadline,
          secrets: this.#env.secrets,
          uploads: this.#env.uploads,
          secret: (name, origin) => this.#env.secret(name, origin),
          checkUrl: (url) => this.#env.checkUrl(url),
          blockedNavigationRule: () => this.#env.blockedNavigationRule?.(tab),
          frameOf: (ref) => resolver.frameOf(ref),
          target: (ref) => this.#deadline.race(resolver.resolve(ref), 'node check'),
          focusTarget: async (ref) => {
            const found = await this.#deadline.race(resolver.resolveForCheckInPage(ref), 'node check');
            // Another tab took the front meanwhile: bringing this one back must not come first.
            if (found.confirm && !this.#env.browser.isFront(tab)) {
              return { target: await this.#deadline.race(resolver.resolve(ref), 'node check') };
            }
            return found;
          },
          settleAlongWithInput: (acknowledged, readAheadIds) => {
            const settling = this.#settle({ tab, root: frame, frame: actedFrame, take, acknowledged, readAheadIds });
            settling.catch(() => {});
            return settling;
          },
          beginSideEffect: async () => {
            if (!step.begin()) return () => {};
            // Only a mark so far when the tab is already in front: that can be taken back.
            const inFront = this.#env.browser.isFront(tab);
            await this.#env.browser.bringToFront(tab);
            return inFront ? () => step.retract() : () => {};
          },
        },
        action,
      );
      // The input reached the page (its handler opened the dialog) but was never acknowledged.
      if (outcome.kind === 'input' && outcome.input === 'dialog') return { interruption: 'dialog', sideEffects: step.value };
      if (outcome.kind === 'navigation') {
        if (outcome.errorText) {
          throw new ActionError('navigation_failed', outcome.errorText, { sideEffect: true });
        }
        if (outcome.download) {
          this.#notes.push('the navigation became a download; the page stays as it was');
          step.acknowledge();
          return { sideEffects: step.value };
        }
        // navigate waited for its new document itself; back, forward and reload wait here.
        const loaded = action.action === 'navigate' ? 'loaded' : await this.#awaitNavigation(watch, actedFrame, true);
        step.acknowledge();
        return loaded === 'download' ? { sideEffects: step.value } : { interruption: 'navigation', sideEffects: step.value };
      }
      step.acknowledge();
      const settling = outcome.kind === 'input' ? outcome.settling : undefined;
      const readAhead = await (settling ?? this.#settle({ tab, root: frame, frame: actedFrame, take }));
      const taken = readAhead ? { readAhead } : {};
      if (watch.navigating) {
        // The input started a navigation: the step is done once its new document is there.
        step.awaitNavigation();
        const loaded = await this.#awaitNavigation(watch, actedFrame, false);
        step.acknowledge();
        return loaded === 'download'
          ? { ...taken, sideEffects: step.value }
          : { interruption: 'navigation', ...taken, sideEffects: step.value };
      }
      // A popup or a file chooser takes the next step out of the caller's hands.
      if (this.#events.filter((e) => e.kind === 'popup' || e.kind === 'file_chooser').length > popupsBefore) {
        return { interruption: 'popup', ...taken, sideEffects: step.value };
      }
      return NAVIGATING_ACTIONS.has(action.action)
        ? { interruption: 'navigation', ...taken, sideEffects: step.value }
        : { ...taken, sideEffects: step.value };
    } catch (error) {
      // A navigation the input started belongs to the step: cut short, the step is unacknowledged.
      if (watch.navigating) step.awaitNavigation();
      // Identity before geometry: a node replaced since its check is node_detached, not "covered".
      const refs = refsOf(action);
      const cause = refs.length === 0
        ? error
        : await this.#deadline.race(resolver.identityFirst(error, refs), 'node check').catch(() => error);
      throw new StepFailed(cause, step.value);
    } finally {
      watch.dispose();
    }
  }

  /**
   * Lets `frame` settle after an input; with `take`, reads ahead for the capture of `root` that
   * follows (TabReader.settle) and returns what it read. With `acknowledged`, the settle goes out
   * along with an armed input, before that input's acknowledgement (perform.ts: settleAlongWithInput).
   */
  async #settle(options: SettleRequest): Promise<ReadAhead | undefined> {
    const { tab, root, frame, take, acknowledged } = options;
    const worlds = this.#env.worlds;
    const settled: Promise<ReadAhead | undefined> = take
      ? this.#env.session.readerFor(tab).settle({
        worlds,
        tab,
        root,
        frame,
        ...(acknowledged ? { acknowledged } : {}),
        readAheadIds: options.readAheadIds ?? [],
      })
      : settleFrame(worlds, frame, acknowledged !== undefined).then(() => undefined);
    // A navigation destroys the context: that is an answer too; so is a dialog opening.
    const outcome = await this.#deadline.race(tab.dialogs.raceOpening(settled.catch(() => undefined)), 'settling');
    return outcome.value;
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
      if (outcome.kind === 'crashed') {
        throw new ActionError('navigation_failed', CRASHED_DURING_NAVIGATION, { sideEffect: true });
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

  /**
   * Waits for the load event of the document in `frame`, within the bound after its
   * DOMContentLoaded and the act's budget less what the observation needs (PROTOCOL.md §7). A
   * dialog, a crash or the tab closing ends it at once. Returns a note for the result when the bound
   * ran out with the document still loading, saying what went ahead anyway.
   */
  async #awaitLoad(tab: Tab, frame: FrameRecord | undefined, wentAhead: string): Promise<string | undefined> {
    if (!frame || tab.closed || tab.loads.readyState(frame.id, frame.loaderId) === 'complete') return undefined;
    this.#env.progress?.('waiting for the page to load');
    const untilMs = Math.max(0, this.#deadline.remaining() - LOAD_WAIT_RESERVE_MS);
    // A crash or the tab closing ends the wait (whenLoaded); the capture that follows says so.
    const ended = await this.#deadline.race(tab.whenLoaded(frame.id, frame.loaderId, untilMs), 'waiting for the page to load');
    if (ended.kind !== 'bound' || !ended.waited) return undefined;
    const state = tab.loads.readyState(frame.id, frame.loaderId);
    return `the page had not fired its load event within ${LOAD_WAIT_AFTER_DCL_MS / 1000} s of DOMContentLoaded ` +
      `or the act's budget; ${wentAhead} with the document ${state}`;
  }

  async #finish(tab: Tab, record: StateRecord, dispatched: Dispatched, inputNote?: string): Promise<ActOutcome> {
    const { interruption } = dispatched;
    const request = this.#request;
    const requested = request.expect !== undefined || request.waitFor !== undefined;
    const evaluated = requested && !interruption;
    const frameOf = () => tab.frames.get(record.frameId) ?? tab.frames.get(tab.mainFrameId);
    let verdict: 'met' | 'unmet' | undefined;
    let failure: Failure | undefined;
    // A navigation's new document (or one still loading when the bound let the input go ahead) is
    // observed once it fired its load event, within the same bound.
    let loadNote = inputNote;
    if (interruption !== 'dialog') {
      try {
        loadNote = (await this.#awaitLoad(tab, frameOf(), 'it was observed')) ?? loadNote;
      } catch (error) {
        failure = this.#classify(error);
      }
    }
    if (evaluated && request.waitFor && !failure) {
      this.#env.progress?.('waiting for the wait_for condition');
      try {
        verdict = await waitForCondition(tab, frameOf, this.#env.worlds, request.waitFor, {
          deadline: this.#deadline,
          lost: this.#lost,
          ...(this.#armed ? { armed: this.#armed } : {}),
        });
      } catch (error) {
        failure = this.#classify(error);
      }
    }
    if (failure?.type !== 'operation_cancelled') this.#env.progress?.('observing the page');
    const fresh = failure?.type === 'operation_cancelled' ? undefined : await this.#capture(tab, record, dispatched.readAhead);
    if (evaluated && request.expect && !failure && verdict !== 'unmet') {
      // Checked in the captured document: without one there is nothing to check it in.
      const frame = frameOf();
      const lost = this.#lossFailure();
      if (lost || !fresh || !frame) {
        failure = lost ?? { type: 'action_failed', text: 'expect was not checked: the fresh observation could not be captured' };
      } else {
        try {
          // A crashed page never answers: the loss ends the check, not a CDP timeout.
          verdict = await Promise.race([checkExpectation(frame, this.#env.worlds, request.expect), this.#lost]);
        } catch (error) {
          failure = this.#classify(error);
        }
      }
    }
    const result = this.#assemble(
      {
        began: dispatched.sideEffects.began,
        acknowledged: dispatched.sideEffects.acknowledged,
        ...(interruption ? { interruption } : {}),
        // Every action ran: what failed now is the postcondition or the capture, not a check of a step.
        ...(failure ? { failure: { type: failure.type, check: false } } : {}),
        requested,
        ...(verdict && !failure ? { verdict } : {}),
        captured: fresh !== undefined,
      },
      fresh,
    );
    if (failure) result.errorText = redactSecrets(failure.text, this.#env.secrets);
    else if (interruption) result.errorText = INTERRUPTION_TEXT[interruption];
    else if (result.postcondition === 'unmet') result.errorText = 'the postcondition does not hold';
    if (!result.errorText && this.#notes.length > 0) {
      const downloaded = this.#events.some((e) => e.kind === 'download' && e.data.state === 'started');
      result.errorText = downloaded
        ? 'the navigation became a download; the page stays as it was'
        : `${this.#notes.join('; ')} (no content, cancelled, or a download)`;
    }
    if (!result.errorText && !fresh && result.errorType) result.errorText = this.#lossFailure()?.text;
    if (loadNote && !failure) result.errorText = result.errorText ? `${result.errorText}; ${loadNote}` : loadNote;
    if (request.screenshot === 'always' || (request.screenshot === 'on_error' && actFailed(result.status))) {
      await this.#attachScreenshot(result, tab);
    }
    return result;
  }

  /** The result's words from how the act ended (outcome.ts: summarize), with what it ran and saw. */
  #assemble(ending: Omit<ActEnding, 'captureLost'>, fresh: CapturedObservation | undefined): ActOutcome {
    const lost = fresh ? undefined : this.#lossFailure()?.type;
    const result: ActOutcome = {
      ...summarize({ ...ending, ...(lost ? { captureLost: lost } : {}) }),
      completed: [...this.#completed],
      events: this.#events,
    };
    if (fresh) result.freshState = fresh;
    return result;
  }

  /**
   * Observes the frame `record` observed, or the main frame once that one is gone (or no record is
   * kept), as act's `observe` param asks. `readAhead`: what was read ahead as the batch's last input
   * settled (its dispatch's result).
   */
  async #capture(
    tab: Tab,
    record: StateRecord | undefined,
    readAhead?: ReadAhead,
    named: NodeToName[] = [],
  ): Promise<CapturedObservation | undefined> {
    if (tab.closed) return undefined;
    const frame = tab.frames.get(record && tab.frames.get(record.frameId) ? record.frameId : tab.mainFrameId);
    if (!frame) return undefined;
    const shape = this.#request.observe;
    const options = {
      signal: this.#deadline.signal,
      ...(readAhead ? { readAhead } : {}),
      ...(named.length > 0 ? { named } : {}),
      ...(shape?.maxElements !== undefined ? { maxElements: shape.maxElements } : {}),
    };
    const capture = (more: { rootRef?: string; rootState?: string } = {}) =>
      captureObservation(this.#env.session, this.#env.worlds, tab, frame, { ...options, ...more });
    if (shape?.rootRef !== undefined) {
      try {
        return await capture({ rootRef: shape.rootRef, ...(shape.rootState !== undefined ? { rootState: shape.rootState } : {}) });
      } catch {
        // Not a ref of the act's state, or its node is gone: the whole frame, as without it.
      }
    }
    try {
      return await capture();
    } catch {
      return undefined;
    }
  }

  /** The refs the tab's fresh state gave a click's blocker and its dismissing control. */
  #blockerRefs(tab: Tab, blocker: Blocker): Pick<HitDescription, 'ref' | 'dismiss_ref'> {
    const targets = [...(this.#env.session.states.current(tab.targetId)?.targets.values() ?? [])];
    const refOf = (node: NodeToName | undefined) =>
      node && targets.find((t) => t.frameId === node.frameId && t.backendNodeId === node.backendNodeId)?.ref;
    const ref = refOf(blocker.blocker);
    const dismissRef = refOf(blocker.dismiss);
    return { ...(ref ? { ref } : {}), ...(dismissRef ? { dismiss_ref: dismissRef } : {}) };
  }

  async #attachScreenshot(result: ActOutcome, tab: Tab): Promise<void> {
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
        const concerns = event.target_id === tab.targetId || (event.kind === 'popup' && event.data.opener_id === tab.targetId);
        if (!concerns || !isReported(event)) return;
        this.#events.push(event);
      }),
    );
  }

  /** Why the act fell short when `error` stopped it: the loss of the tab or browser names it first. */
  #classify(error: unknown): Failure {
    const browserGone = this.#tab !== undefined && !this.#env.browser.isConnected;
    if (!browserGone && (error instanceof AbortedError || this.#env.signal.aborted)) {
      return { type: 'operation_cancelled', text: 'the act was cancelled; its outcome is unknown' };
    }
    const lost = this.#lossFailure();
    if (lost) return lost;
    if (error instanceof DeadlineExceededError) return { type: 'timeout', text: error.message };
    if (error instanceof ActionError) {
      return {
        type: error.type,
        text: error.message,
        check: true,
        sideEffect: error.sideEffect,
        ...(error.hit ? { hit: error.hit } : {}),
        ...(error.blocker ? { blocker: error.blocker } : {}),
      };
    }
    return { type: 'action_failed', text: `unexpected failure: ${(error as Error)?.message ?? String(error)}` };
  }

  /** The acted tab is gone, or its page or the whole browser: the word for it, with what to do. */
  #lossFailure(): Failure | undefined {
    const tab = this.#tab;
    if (!tab) return undefined;
    if (!this.#env.browser.isConnected) {
      return {
        type: 'browser_unavailable',
        text: 'the browser went away during the act (it crashed or was killed); its sessions are closed: create a new one',
      };
    }
    if (tab.closed) return { type: 'target_not_found', text: `the tab ${tab.targetId} closed during the act` };
    if (tab.crashed) {
      // The observed document died with its renderer: the word step 5 uses for a crashed page.
      return { type: 'document_changed', text: 'the page crashed during the act: reload the tab (act reload) or navigate, then observe' };
    }
    return undefined;
  }

  #watchLoss(tab: Tab): void {
    const browser = this.#env.browser;
    this.#lost = new Promise<never>((_, reject) => {
      const lost = () => reject(new Error('the tab was lost'));
      this.#disposables.add(tab.events.on('closed', lost));
      this.#disposables.add(tab.events.on('crashed', lost));
      this.#disposables.add(browser.events.on('disconnected', lost));
      if (tab.closed || tab.crashed || !browser.isConnected) lost();
    });
    this.#lost.catch(() => {});
  }

  /**
   * A result for an act that stopped on an error before or while dispatching its actions;
   * `sideEffects`: where they stood when it stopped.
   */
  async #result(failure: Failure, sideEffects: SideEffects = NOTHING_BEGUN): Promise<ActOutcome> {
    const began = sideEffects.began || failure.sideEffect === true;
    // After input began the page may have changed; a refusal before it consumed the state: either
    // way the page as it is now comes along, so that the caller's next call acts on it (§7). A
    // refusal before input of a lost tab or page has nothing to observe.
    const tab = this.#tab;
    const refusalObserved = !UNOBSERVED_REFUSALS.has(failure.type) && !this.#lossFailure();
    let fresh: CapturedObservation | undefined;
    if (tab && failure.type !== 'operation_cancelled' && (began || refusalObserved)) {
      const named = failure.blocker ? [failure.blocker.blocker, ...(failure.blocker.dismiss ? [failure.blocker.dismiss] : [])] : [];
      fresh = await this.#capture(tab, this.#env.session.states.get(this.#request.stateId), undefined, named);
    }
    const result = this.#assemble(
      {
        began,
        acknowledged: sideEffects.acknowledged,
        failure: { type: failure.type, check: failure.check === true },
        requested: this.#request.expect !== undefined || this.#request.waitFor !== undefined,
        captured: fresh !== undefined,
      },
      fresh,
    );
    result.errorText = redactSecrets(failure.text, this.#env.secrets);
    // The covering element's name is page text, which may show a typed secret.
    if (failure.hit) {
      result.hit = {
        ...failure.hit,
        name: redactSecrets(failure.hit.name, this.#env.secrets),
        ...(fresh && tab && failure.blocker ? this.#blockerRefs(tab, failure.blocker) : {}),
      };
    }
    if (tab && (this.#request.screenshot === 'always' || (this.#request.screenshot === 'on_error' && actFailed(result.status)))) {
      await this.#attachScreenshot(result, tab);
    }
    return result;
  }
}

export function runAct(env: ActEnv, request: ActRequest): Promise<ActOutcome> {
  return new ActRun(env, request).run();
}
