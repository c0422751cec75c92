// Direct page access for tests that must change a page behind the server's back (DOM edits,
// timers, dialogs): through the in-process server's own CDP session of that tab.
import type { TestServer } from './pagewire.ts';
import type { CdpSession } from '../../src/cdp/session.ts';

export function tabOf(server: TestServer, targetId: string) {
  const tab = server.server.host.browsers().map((browser) => browser.tab(targetId)).find((found) => found !== undefined);
  if (!tab) throw new Error(`no tab ${targetId} in the test server's browser`);
  return tab;
}

/** Evaluates `expression` in the tab's main frame and returns its value. */
export async function evaluate<T = unknown>(server: TestServer, targetId: string, expression: string): Promise<T> {
  const { result, exceptionDetails } = await tabOf(server, targetId).session.send('Runtime.evaluate', {
    expression,
    returnByValue: true,
    awaitPromise: true,
  });
  if (exceptionDetails) throw new Error(`page threw: ${exceptionDetails.text} ${result.description ?? ''}`);
  return result.value as T;
}

/** The reading state (observer.ts) the server keeps for a tab of a session. */
export function readerOf(server: TestServer, sessionId: string, targetId: string) {
  const session = server.server.registry.all().find((candidate) => candidate.id === sessionId);
  if (!session) throw new Error(`no session ${sessionId} in the test server`);
  return session.readerFor(tabOf(server, targetId));
}

/** The CDP methods `session` sends while `work` runs, with their params. */
export async function sentDuring(session: CdpSession, work: () => Promise<unknown>): Promise<Array<{ method: string; params: unknown }>> {
  const sent: Array<{ method: string; params: unknown }> = [];
  const original = session.sendRaw;
  session.sendRaw = function (method, params, options) {
    sent.push({ method, params });
    return original.call(this, method, params, options);
  };
  try {
    await work();
  } finally {
    session.sendRaw = original;
  }
  return sent;
}

/**
 * Resolves once `session` sends a call of the in-page function `name` (the server reached the step
 * that makes it): an act's wait for its condition, say, after its input was acknowledged.
 */
export function pageCallSent(session: CdpSession, name: string): Promise<void> {
  return new Promise((resolve) => {
    const original = session.sendRaw;
    session.sendRaw = function (method, params, options) {
      const declaration = method === 'Runtime.callFunctionOn'
        ? String((params as { functionDeclaration?: unknown }).functionDeclaration)
        : '';
      if (declaration.includes(`.${name}.apply(`)) {
        session.sendRaw = original;
        resolve();
      }
      return original.call(this, method, params, options);
    };
  });
}

/** The function declarations of the Runtime.callFunctionOn messages `session` sends while `work` runs. */
export async function functionsSentDuring(session: CdpSession, work: () => Promise<unknown>): Promise<string[]> {
  const sent = await sentDuring(session, work);
  return sent
    .filter(({ method }) => method === 'Runtime.callFunctionOn')
    .map(({ params }) => String((params as { functionDeclaration: string }).functionDeclaration));
}

/**
 * Resolves once the tab's main frame shows a document whose URL holds `path` and that document
 * reached DOMContentLoaded (a popup reported as it opened, say); checked again at each
 * Page.domContentEventFired, so nothing is polled.
 */
export async function documentLoaded(server: TestServer, targetId: string, path: string): Promise<void> {
  const session = tabOf(server, targetId).session;
  const there = async () => {
    const reply = await session
      .send('Runtime.evaluate', {
        expression: `location.href.includes(${JSON.stringify(path)}) && document.readyState !== 'loading'`,
        returnByValue: true,
      })
      .catch(() => undefined);
    return reply?.result.value === true;
  };
  let subscription: { dispose(): void } | undefined;
  const fired = new Promise<void>((resolve) => {
    subscription = session.on('Page.domContentEventFired', () => void there().then((yes) => yes && resolve()));
  });
  try {
    if (!(await there())) await fired;
  } finally {
    subscription?.dispose();
  }
}
