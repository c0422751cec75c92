// Direct page access for tests that must change a page behind the server's back (DOM edits,
// timers, dialogs): through the in-process server's own CDP session of that tab.
import type { TestServer } from './pagewire.ts';
import type { CdpSession } from '../../src/cdp/session.ts';

export function tabOf(server: TestServer, targetId: string) {
  const tab = server.server.host.current?.tab(targetId);
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

/** The function declarations of the Runtime.callFunctionOn messages `session` sends while `work` runs. */
export async function functionsSentDuring(session: CdpSession, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const original = session.sendRaw;
  session.sendRaw = function (method, params, options) {
    if (method === 'Runtime.callFunctionOn') sent.push(String((params as { functionDeclaration: string }).functionDeclaration));
    return original.call(this, method, params, options);
  };
  try {
    await work();
  } finally {
    session.sendRaw = original;
  }
  return sent;
}
