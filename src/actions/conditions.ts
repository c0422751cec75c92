// The caller's postconditions: `expect` (exact textContent of the single match, checked once in
// the captured document) and `wait_for` (text, URL glob or selector in a state, waited for within
// the act's budget, event-driven in the page with a slow poll for style-only changes).
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import { AbortedError, DeadlineExceededError, type Deadline } from '../util/deadline.ts';
import { urlMatches } from '../util/url-glob.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callInWorld, pageFunction } from '../browser/page-function.ts';
import type { Expectation, WaitFor } from './types.ts';

export type Verdict = 'met' | 'unmet' | 'unknown';

function expectText(selector: string, text: string): string {
  const matches = document.querySelectorAll(selector);
  if (matches.length !== 1) return 'unmet';
  return matches[0]!.textContent === text ? 'met' : 'unmet';
}

function waitInPage(kind: string, argument: string, state: string, timeoutMs: number): Promise<boolean> {
  const visible = (element: Element) => {
    const style = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    return style.visibility !== 'hidden' && style.display !== 'none' && box.width > 0 && box.height > 0;
  };
  const holds = (): boolean => {
    if (kind === 'text') {
      const present = (document.body?.innerText ?? '').includes(argument);
      return state === 'hidden' || state === 'detached' ? !present : present;
    }
    const element = document.querySelector(argument);
    if (state === 'attached') return element !== null;
    if (state === 'detached') return element === null;
    if (state === 'hidden') return element === null || !visible(element);
    return element !== null && visible(element);
  };
  return new Promise((resolve) => {
    if (holds()) return resolve(true);
    const finish = (value: boolean) => {
      observer.disconnect();
      clearInterval(poll);
      clearTimeout(timer);
      resolve(value);
    };
    const observer = new MutationObserver(() => holds() && finish(true));
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const poll = setInterval(() => holds() && finish(true), 100); // style-only changes fire no mutation
    const timer = setTimeout(() => finish(false), timeoutMs);
  });
}

async function evaluateIn<T>(tab: Tab, frame: FrameRecord, worlds: IsolatedWorlds, fn: (...args: never[]) => unknown, args: unknown[], timeoutMs?: number): Promise<T> {
  const contextId = await worlds.contextFor(frame.session, frame.id, frame.loaderId);
  const { result, exceptionDetails } = await callInWorld(
    frame.session,
    contextId,
    pageFunction(fn),
    { arguments: args.map((value) => ({ value })), returnByValue: true, awaitPromise: true },
    timeoutMs === undefined ? {} : { timeoutMs: timeoutMs + 1_000 },
  );
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  void tab;
  return result.value as T;
}

export async function checkExpectation(tab: Tab, frame: FrameRecord, worlds: IsolatedWorlds, expectation: Expectation): Promise<Verdict> {
  try {
    return (await evaluateIn<Verdict>(tab, frame, worlds, expectText, [expectation.selector, expectation.text], 5_000)) ?? 'unknown';
  } catch {
    return 'unknown'; // an invalid selector, a frame that went away
  }
}

export async function waitForCondition(
  tab: Tab,
  frameOf: () => FrameRecord | undefined,
  worlds: IsolatedWorlds,
  condition: WaitFor,
  deadline: Deadline,
): Promise<Verdict> {
  const state = condition.state ?? 'visible';
  if ('url' in condition) {
    const matches = () => {
      const url = frameOf()?.url ?? '';
      const hit = urlMatches(url, condition.url);
      return state === 'hidden' || state === 'detached' ? !hit : hit;
    };
    if (matches()) return 'met';
    const waiting = new Promise<void>((resolve) => {
      const subscription = tab.events.on('navigated', () => {
        if (matches()) {
          subscription.dispose();
          resolve();
        }
      });
    });
    try {
      await deadline.race(waiting, 'waiting for the URL');
      return 'met';
    } catch {
      return 'unmet';
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
    return d.race(next, 'waiting for the next document').finally(() => subscription?.dispose());
  };
  // A navigation destroys the page's context mid-wait: start again in the new document.
  while (deadline.remaining() > 0) {
    const frame = frameOf();
    if (!frame) return 'unknown';
    try {
      const held = await deadline.race(
        // The page gives up a little before the budget does, so an unmet condition reads as unmet.
        evaluateIn<boolean>(tab, frame, worlds, waitInPage, [kind, argument, state, Math.max(1, Math.floor(deadline.remaining() - 100))], deadline.remaining()),
        'wait_for',
      );
      return held ? 'met' : 'unmet';
    } catch (error) {
      if (error instanceof DeadlineExceededError || error instanceof AbortedError) throw error;
      // The target is gone (closed, crashed, browser lost): nothing left to wait for.
      if (isCdpError(error) && error.isTargetGone) return 'unknown';
      // The page itself threw (an invalid selector): it would throw again.
      if (!isCdpError(error)) return 'unknown';
      // The document went away mid-wait: go on in the next one once it commits.
      if (!navigatedSince(frame)) await nextNavigation(tab, deadline);
    }
  }
  return 'unmet';
}
