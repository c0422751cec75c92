// The caller's postconditions: `expect` (exact textContent of the single match, checked once in
// the captured document) and `wait_for` (text, URL glob or selector in a state, waited for within
// the act's budget, event-driven in the page with a slow poll for style-only changes).
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import { type Deadline, DeadlineExceededError } from '../util/deadline.ts';
import { compileUrlGlob } from '../util/url-glob.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPageRaw, type PageArgs, type PageResult, type PageTarget } from '../browser/page-module.ts';
import { ActionError } from './outcome.ts';
import type { Expectation, WaitFor } from './types.ts';

/** The page function threw (an invalid selector): the caller's params are at fault. */
class PageThrew extends Error {}

/** A check in the frame's document, in our world. Throws PageThrew when the function threw. */
async function evaluateIn<K extends 'expectText' | 'waitInPage' | 'armCondition' | 'takeConditionWatch'>(
  frame: FrameRecord,
  worlds: IsolatedWorlds,
  name: K,
  args: PageArgs<K>,
  timeoutMs?: number,
): Promise<PageResult<K>> {
  const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const { result, exceptionDetails } = await callPageRaw(
    { session: frame.session, executionContextId: contextId } as PageTarget<K>,
    name,
    args,
    { returnByValue: true, awaitPromise: true },
    timeoutMs === undefined ? {} : { timeoutMs: timeoutMs + 1_000 },
  );
  if (exceptionDetails) throw new PageThrew(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value as PageResult<K>;
}

/**
 * Checks `expect` once in the captured document. Throws when it cannot be evaluated:
 * invalid_params for a selector the page refuses, document_changed when that document is gone;
 * a CDP error of a lost target as it came (the act names the loss).
 */
export async function checkExpectation(frame: FrameRecord, worlds: IsolatedWorlds, expectation: Expectation): Promise<'met' | 'unmet'> {
  let verdict: string;
  try {
    verdict = await evaluateIn(frame, worlds, 'expectText', [expectation.selector, expectation.text], 5_000);
  } catch (error) {
    if (error instanceof PageThrew) {
      throw new ActionError('invalid_params', `expect.selector is not a selector the page accepts: ${firstLine(error.message)}`);
    }
    if (isCdpError(error) && !error.isTargetGone) {
      throw new ActionError('document_changed', 'the captured document went away before expect could be checked', { cause: error });
    }
    throw error;
  }
  return verdict === 'met' ? 'met' : 'unmet';
}

/** A text or selector condition watched in one document since just before an act's first input. */
export interface ArmedCondition {
  readonly frameId: string;
  readonly loaderId: string;
}

/**
 * Arms the watch of `condition` in `frame`'s document (page/conditions.ts: armCondition), to be
 * called just before the first input. Undefined when there is nothing to arm (a URL, which every
 * navigation is tested against anyway) or it could not be armed (a selector the page refuses, a
 * document going away): the wait after the act then runs as without it, and says why.
 */
export async function armCondition(frame: FrameRecord, worlds: IsolatedWorlds, condition: WaitFor): Promise<ArmedCondition | undefined> {
  if ('url' in condition) return undefined;
  const [kind, argument] = 'text' in condition ? ['text', condition.text] : ['selector', condition.selector];
  try {
    await evaluateIn(frame, worlds, 'armCondition', [kind, argument, condition.state ?? 'visible'], 5_000);
    return { frameId: frame.id, loaderId: frame.loaderId };
  } catch {
    return undefined;
  }
}

/**
 * Ends the armed watch and says whether the condition held at some moment since: false when the
 * frame navigated away from the armed document (the watch went with it) or cannot be asked.
 */
export async function heldSinceArmed(armed: ArmedCondition, frame: FrameRecord | undefined, worlds: IsolatedWorlds): Promise<boolean> {
  if (!frame || frame.id !== armed.frameId || frame.loaderId !== armed.loaderId) return false;
  try {
    return await evaluateIn(frame, worlds, 'takeConditionWatch', [], 5_000);
  } catch {
    return false;
  }
}

export interface WaitOptions {
  deadline: Deadline;
  /** Rejects once the tab is lost (closed, crashed, the browser gone): nothing is left to wait for. */
  lost: Promise<never>;
  /** The condition's watch armed before an act's input: met if it held at any moment since. */
  armed?: ArmedCondition;
}

/**
 * Waits for `condition` within the deadline: `met`, or `unmet` once the budget ran out while it
 * was being waited for. Throws when it cannot be evaluated: AbortedError (cancel),
 * DeadlineExceededError (the budget was gone before it could be checked once), invalid_params
 * (a selector the page refuses), the loss of the tab (`lost`), a CDP error of a lost target.
 */
export async function waitForCondition(
  tab: Tab,
  frameOf: () => FrameRecord | undefined,
  worlds: IsolatedWorlds,
  condition: WaitFor,
  { deadline, lost, armed }: WaitOptions,
): Promise<'met' | 'unmet'> {
  const state = condition.state ?? 'visible';
  if (deadline.expired) throw new DeadlineExceededError('wait_for', deadline.budgetMs);
  const untilLost = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => {}); // when the loss wins, the wait settles on its own
    return Promise.race([promise, lost]);
  };
  if ('url' in condition) {
    // Compiled once for the wait: every navigation tests it again.
    const test = compileUrlGlob(condition.url);
    const matches = () => {
      const hit = test(frameOf()?.url ?? '');
      return state === 'hidden' || state === 'detached' ? !hit : hit;
    };
    if (matches()) return 'met';
    let subscription: { dispose(): void } | undefined;
    const waiting = new Promise<void>((resolve) => {
      subscription = tab.events.on('navigated', () => matches() && resolve());
    });
    try {
      await untilLost(deadline.race(waiting, 'waiting for the URL'));
      return 'met';
    } catch (error) {
      if (error instanceof DeadlineExceededError) return 'unmet';
      throw error;
    } finally {
      subscription?.dispose();
    }
  }
  const [kind, argument] = 'text' in condition ? ['text', condition.text] : ['selector', condition.selector];
  // A failed in-page wait is retried only in a new document (a navigation destroyed the old one).
  const navigatedSince = (frame: FrameRecord) => frameOf()?.loaderId !== frame.loaderId;
  const nextNavigation = (t: Tab, d: Deadline) => {
    let subscription: { dispose(): void } | undefined;
    const next = new Promise<void>((resolve) => {
      subscription = t.events.on('navigated', () => resolve());
    });
    return untilLost(d.race(next, 'waiting for the next document')).finally(() => subscription?.dispose());
  };
  // A navigation destroys the page's context mid-wait: start again in the new document.
  try {
    // It held for a moment during the act, in the document it was armed in: met, whatever it is now.
    if (armed && (await untilLost(deadline.race(heldSinceArmed(armed, frameOf(), worlds), 'wait_for')))) return 'met';
    while (deadline.remaining() > 0) {
      const frame = frameOf();
      if (!frame) throw new ActionError('frame_detached', 'the frame to wait in is gone');
      try {
        const held = await untilLost(
          deadline.race(
            // The page gives up a little before the budget does, so an unmet condition reads as unmet.
            evaluateIn(
              frame,
              worlds,
              'waitInPage',
              [kind, argument, state, Math.max(1, Math.floor(deadline.remaining() - 100))],
              deadline.remaining(),
            ),
            'wait_for',
          ),
        );
        return held ? 'met' : 'unmet';
      } catch (error) {
        if (error instanceof PageThrew) {
          throw new ActionError('invalid_params', `wait_for.selector is not a selector the page accepts: ${firstLine(error.message)}`);
        }
        // Anything but a context the page destroyed (by navigating) ends the wait.
        if (!isCdpError(error) || error.isTargetGone || tab.closed || tab.crashed) throw error;
        // The document went away mid-wait: go on in the next one once it commits.
        if (!navigatedSince(frame)) await nextNavigation(tab, deadline);
      }
    }
  } catch (error) {
    // The budget ran out while the condition was being waited for: it did not hold in time.
    if (error instanceof DeadlineExceededError) return 'unmet';
    throw error;
  }
  return 'unmet';
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0]!;
}
