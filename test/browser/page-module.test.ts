// The in-page module (src/page/) installed by src/browser/page-module.ts, against a real page: the
// first call in a context of our world carries the module, later calls only name a function, a
// context that lost it gets it again once. The `@ts-expect-error` lines are a test too: tsc (and
// deno check) fail if any of them compiles.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import vm from 'node:vm';
import { callPage, callPageRaw, installableModule, PageObject } from '../../src/browser/page-module.ts';
import type { CdpSession } from '../../src/cdp/session.ts';
import { functionsSentDuring, tabOf } from '../helpers/page.ts';
import { withSession } from '../helpers/session-suite.ts';

const s = suite('the in-page module, installed once per context');
const ctx = withSession(s, 'page-module');
let targetId: string;

s.before(async () => {
  ({ target_id: targetId } = await ctx.client.call('tabs.new', { session_id: ctx.sessionId, url: ctx.fixtures.url('/form.html') }));
});

/** A context of a world of its own in the main frame, which no call has reached yet. */
async function freshWorld() {
  const tab = tabOf(ctx.server, targetId);
  const frame = tab.frames.get(tab.mainFrameId)!;
  const { executionContextId } = await frame.session.send('Page.createIsolatedWorld', {
    frameId: frame.id,
    worldName: `page-module-test-${++worlds}`,
  });
  return { session: frame.session, executionContextId };
}
let worlds = 0;

const module = installableModule();
const carriesModule = (declaration: string) => declaration.length >= module.sourceBytes;

s('the installable source runs in a fresh V8 context: every name is bound, and one global holds the API', () => {
  const context = vm.createContext({});
  const install = vm.runInContext(`(${module.installAndCall('isSameConnectedNode')})`, context) as (this: unknown, d: unknown) => boolean;
  const page = {};
  assert.is(install.call({ isConnected: true, ownerDocument: page }, page), true);
  const globals = Object.keys(context).filter((key) => key.startsWith('__pagewire'));
  assert.is(globals.length, 1);
  const byName = vm.runInContext(`(${module.callByName('isSameConnectedNode')})`, context) as (this: unknown, d: unknown) => boolean;
  assert.is(byName.call({ isConnected: false, ownerDocument: page }, page), false);
});

s('the first call carries the module; later calls in that context, of any function, name it', async () => {
  const world = await freshWorld();
  const answers: unknown[] = [];
  const sent = await functionsSentDuring(world.session, async () => {
    answers.push(await callPage(world, 'expectText', ['h1', 'nothing like this']));
    answers.push(await callPage(world, 'expectText', ['form', '']));
    answers.push(await callPage(world, 'settle', [4, 250, false]));
  });
  assert.equal(answers, ['unmet', 'unmet', undefined]);
  assert.is(sent.length, 3);
  assert.ok(carriesModule(sent[0]!), 'the first call installs the module');
  for (const named of sent.slice(1)) {
    assert.ok(named.length < 160, `a later call only names its function (${named.length} characters)`);
  }
});

s('calls on a node run with the node as this; a node argument is an object of the context', async () => {
  const world = await freshWorld();
  const evaluate = (expression: string) =>
    world.session.send('Runtime.evaluate', { expression, contextId: world.executionContextId }).then((r) => r.result.objectId!);
  const input = { ...world, objectId: await evaluate('document.querySelector("input")') };
  const info = await callPage(input, 'fileInputInfo', []);
  assert.equal(info, { isFileInput: false, multiple: false });
  assert.is(await callPage(input, 'isSameConnectedNode', [new PageObject(await evaluate('document'))]), true);
  assert.is(await callPage(input, 'isSameConnectedNode', [new PageObject(await evaluate('new Document()'))]), false);
});

s('a context that lost the module gets it again, once; without retry the call fails instead', async () => {
  const world = await freshWorld();
  await callPage(world, 'expectText', ['h1', '']);
  const forget = () =>
    world.session.send('Runtime.evaluate', {
      expression: 'for (const key of Object.keys(globalThis)) if (key.startsWith("__pagewire")) delete globalThis[key]',
      contextId: world.executionContextId,
    });
  await forget();
  const sent = await functionsSentDuring(world.session, async () => {
    assert.is(await callPage(world, 'expectText', ['h1', '']), 'unmet');
    assert.is(await callPage(world, 'expectText', ['h1', '']), 'unmet');
  });
  assert.is(sent.length, 3, 'named, then installed, then named');
  assert.equal(sent.map(carriesModule), [false, true, false]);
  await forget();
  const error = await callPageRaw(world, 'expectText', ['h1', ''], {}, { retry: false }).catch((e: unknown) => e);
  assert.instance(error, Error);
  assert.match((error as Error).message, /not installed/);
  assert.is(await callPage(world, 'expectText', ['h1', '']), 'unmet', 'the next call installs it again');
});

s('a wrong name, wrong arguments, a wrong target or a wrong use of the result do not compile', () => {
  const world = { session: {} as CdpSession, executionContextId: 1 };
  const node = { ...world, objectId: 'o' };
  const check = () => {
    // @ts-expect-error: no such function in the module
    void callPage(world, 'focusAndSelect', []);
    // @ts-expect-error: expectText takes a selector and a text
    void callPage(world, 'expectText', ['h1']);
    // @ts-expect-error: settle's third argument is a boolean
    void callPage(world, 'settle', [4, 250, 'yes']);
    // @ts-expect-error: a node argument is a PageObject, not an object id
    void callPage(node, 'isSameConnectedNode', ['o']);
    // @ts-expect-error: focusPrepared runs on a node: a context is not enough
    void callPage(world, 'focusPrepared', ['select', new PageObject('d'), false]);
    void callPage(node, 'focusPrepared', ['select', new PageObject('d'), false]).then((focused) => {
      // @ts-expect-error: the answer is Focused or 'detached', not a number
      const n: number = focused;
      return n;
    });
    void callPage(world, 'expectText', ['h1', '']).then((verdict) => {
      // @ts-expect-error: 'met' | 'unmet' has no such member
      return verdict === 'maybe';
    });
  };
  assert.type(check, 'function', 'checked by the type checker');
});

s.run();
