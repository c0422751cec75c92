// callInWorld (src/browser/page-function.ts) against a real page: a function's source goes to a
// context of our world once, later calls only name it, and a context without it gets it again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callInWorld, pageFunction } from '../../src/browser/page-function.ts';
import type { CdpSession } from '../../src/cdp/session.ts';
import { tabOf } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';

const s = suite('in-page functions sent once per context');
const ctx = withSession(s, 'page-function');
let targetId: string;

s.before(async () => {
  ({ target_id: targetId } = await ctx.client.call('tabs.new', { session_id: ctx.sessionId, url: ctx.fixtures.url('/form.html') }));
});

/** A function with a recognisable body, new per test so that no context has it yet. */
function marked(mark: string): string {
  return `function (a) { return ${JSON.stringify(mark)} + ':' + (a * 2) + ':' + String(this?.nodeName ?? 'global'); }`;
}

/** The declarations of the Runtime.callFunctionOn messages `session` sends while `work` runs. */
async function declarationsSentDuring(session: CdpSession, work: () => Promise<unknown>): Promise<string[]> {
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

async function worldOfMainFrame() {
  const tab = tabOf(ctx.server, targetId);
  const frame = tab.frames.get(tab.mainFrameId)!;
  const contextId = await ctx.server.server.host.current!.worlds.contextFor(frame.session, frame.id, frame.loaderId);
  return { tab, frame, contextId };
}

s('the first call carries the source; later calls in that context name it and give the same answers', async () => {
  const { frame, contextId } = await worldOfMainFrame();
  const fn = marked(`first-${Date.now()}`);
  const answers: unknown[] = [];
  const sent = await declarationsSentDuring(frame.session, async () => {
    for (const a of [1, 2, 3]) {
      const { result } = await callInWorld(frame.session, contextId, fn, { arguments: [{ value: a }], returnByValue: true });
      answers.push(result.value);
    }
  });
  const mark = JSON.parse(fn.slice(fn.indexOf('return ') + 7, fn.indexOf(' +'))) as string;
  assert.equal(answers, [`${mark}:2:global`, `${mark}:4:global`, `${mark}:6:global`]);
  assert.is(sent.length, 3);
  assert.ok(sent[0]!.includes(fn), 'the first call sends the source');
  for (const named of sent.slice(1)) {
    assert.not.ok(named.includes(mark), 'a later call does not send the source again');
    assert.ok(named.length < 300, `a later call is short (${named.length} characters)`);
  }
});

s('calls on a node of the world run with the node as this', async () => {
  const { frame, contextId } = await worldOfMainFrame();
  const { result: input } = await frame.session.send('Runtime.evaluate', { expression: 'document.querySelector("input")', contextId });
  const fn = marked(`node-${Date.now()}`);
  for (let i = 0; i < 2; i++) {
    const { result } = await callInWorld(frame.session, contextId, fn, {
      objectId: input.objectId!,
      arguments: [{ value: 5 }],
      returnByValue: true,
    });
    assert.match(String(result.value), /:10:INPUT$/);
  }
});

s('a context that lost the function gets the source again; without retry the call fails instead', async () => {
  const { frame, contextId } = await worldOfMainFrame();
  const fn = marked(`lost-${Date.now()}`);
  await callInWorld(frame.session, contextId, fn, { arguments: [{ value: 1 }], returnByValue: true });
  const forget = () => frame.session.send('Runtime.evaluate', { expression: 'delete globalThis.__pagewireFunctions', contextId });
  await forget();
  const sent = await declarationsSentDuring(frame.session, async () => {
    const { result } = await callInWorld(frame.session, contextId, fn, { arguments: [{ value: 4 }], returnByValue: true });
    assert.match(String(result.value), /:8:global$/);
  });
  assert.is(sent.length, 2, 'named first, then sent in full');
  assert.ok(sent[1]!.includes(fn));
  await forget();
  const error = await callInWorld(frame.session, contextId, fn, { arguments: [{ value: 1 }] }, { retry: false }).catch((e: unknown) => e);
  assert.instance(error, Error);
  assert.match((error as Error).message, /not installed/);
  // …and the next call sends the source again.
  const { result } = await callInWorld(frame.session, contextId, fn, { arguments: [{ value: 3 }], returnByValue: true });
  assert.match(String(result.value), /:6:global$/);
});

s('a new document is a new context: the source is sent to it again', async () => {
  const fn = pageFunction(function twice(this: unknown, a: number) {
    return a * 2;
  });
  const before = await worldOfMainFrame();
  await callInWorld(before.frame.session, before.contextId, fn, { arguments: [{ value: 1 }], returnByValue: true });
  const { state_id } = await ctx.client.call('observe', { session_id: ctx.sessionId, target_id: targetId });
  const reloaded = await ctx.client.call('act', { session_id: ctx.sessionId, target_id: targetId, state_id, action: 'reload' });
  assert.is(reloaded.status, 'completed');
  const after = await worldOfMainFrame();
  assert.is.not(after.contextId, before.contextId);
  const sent = await declarationsSentDuring(after.frame.session, async () => {
    const { result } = await callInWorld(after.frame.session, after.contextId, fn, { arguments: [{ value: 21 }], returnByValue: true });
    assert.is(result.value, 42);
  });
  assert.ok(sent[0]!.includes(fn));
});

s("what one tab's session sent is its own: functions sent into another tab do not move its names", async () => {
  const { frame, contextId } = await worldOfMainFrame();
  const { target_id: otherId } = await ctx.client.call('tabs.new', { session_id: ctx.sessionId, url: ctx.fixtures.url('/form.html') });
  const other = tabOf(ctx.server, otherId);
  const otherFrame = other.frames.get(other.mainFrameId)!;
  assert.is.not(otherFrame.session, frame.session, 'each tab has its own CDP session');
  const otherContext = await ctx.server.server.host.current!.worlds.contextFor(otherFrame.session, otherFrame.id, otherFrame.loaderId);
  /** The name a first call gives its function in the context's registry. */
  const nameGiven = async (session: CdpSession, context: number, fn: string) => {
    const sent = await declarationsSentDuring(
      session,
      () => callInWorld(session, context, fn, { arguments: [{ value: 1 }], returnByValue: true }),
    );
    return Number(/\.set\("f(\d+)"/.exec(sent[0]!)?.[1]);
  };
  const first = await nameGiven(frame.session, contextId, marked(`own-1-${Date.now()}`));
  for (let i = 0; i < 3; i++) await nameGiven(otherFrame.session, otherContext, marked(`other-${i}-${Date.now()}`));
  const next = await nameGiven(frame.session, contextId, marked(`own-2-${Date.now()}`));
  assert.is(next, first + 1, 'the next name of this session, whatever the other tab sent');
  await ctx.client.call('tabs.close', { session_id: ctx.sessionId, target_id: otherId });
});

s.run();
