// Compile-time checks of protocol/generated/maps.ts (and of the committed mini fixture output):
// the real assertions are the `// @ts-expect-error` lines and `expectType<Equal<…>>()` calls,
// which `tsc -p tsconfig.json` and `deno check` verify. At runtime the checks run against fakes
// and the suite asserts a few facts about meta.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { CommandArgs, CommandName, CommandParams, CommandResult, EventName, EventPayload } from '../../protocol/generated/maps.ts';
import { COMMANDS, EVENTS } from '../../protocol/generated/meta.ts';
import type {
  CommandArgs as MiniArgs,
  CommandName as MiniCommandName,
  CommandParams as MiniParams,
  EventName as MiniEventName,
  EventPayload as MiniPayload,
} from '../../fixtures/protocol/mini.expected/maps.ts';
import type { Cdp as MiniCdp } from '../../fixtures/protocol/mini.expected/cdp.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

type Send = <M extends CommandName>(method: M, ...args: CommandArgs<M>) => Promise<CommandResult<M>>;
type On = <E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) => void;

async function typingChecks(send: Send, on: On): Promise<void> {
  const nav = await send('Page.navigate', { url: 'https://example.com/' });
  const frameId: Cdp.Page.FrameId = nav.frameId;
  const loaderId: Cdp.Network.LoaderId | undefined = nav.loaderId;
  void frameId;
  void loaderId;
  await send('Page.enable');
  await send('Page.enable', { enableFileChooserOpenedEvent: true });
  const version = await send('Browser.getVersion');
  const product: string = version.product;
  void product;
  await send('Page.setDownloadBehavior', { behavior: 'deny' }); // deprecated but kept

  // @ts-expect-error unknown method name
  await send('Page.navigateTo', { url: 'https://example.com/' });
  // @ts-expect-error missing required param `url`
  await send('Page.navigate', {});
  // @ts-expect-error params are required for Page.navigate
  await send('Page.navigate');
  // @ts-expect-error wrong field type
  await send('Page.navigate', { url: 42 });
  // @ts-expect-error Browser.getVersion takes no params
  await send('Browser.getVersion', {});
  // @ts-expect-error enum field only takes its literal values
  await send('Page.setDownloadBehavior', { behavior: 'maybe' });
  // @ts-expect-error deprecated and not on the keep-list: left out of CommandMap
  await send('Page.setDeviceMetricsOverride', { width: 1, height: 1, deviceScaleFactor: 1, mobile: false });
  // @ts-expect-error no such field on the result
  void nav.nope;

  on('Page.lifecycleEvent', (event) => {
    const name: string = event.name;
    const frame: Cdp.Page.FrameId = event.frameId;
    void name;
    void frame;
  });
  on('DOM.documentUpdated', (payload) => {
    const nothing: undefined = payload;
    void nothing;
  });
  on('Page.downloadWillBegin', (event) => void event.guid); // deprecated but kept
  // @ts-expect-error unknown event name
  on('Page.lifecycleEvnt', () => undefined);
  // @ts-expect-error wrong payload field
  on('Page.lifecycleEvent', (event) => void event.nope);
}

// Helper types.
expectType<Equal<CommandArgs<'Browser.getVersion'>, []>>();
expectType<Equal<CommandArgs<'Page.enable'>, [params?: Cdp.Page.EnableParams]>>();
expectType<Equal<CommandArgs<'Page.navigate'>, [params: Cdp.Page.NavigateParams]>>();
expectType<Equal<CommandParams<'Page.navigate'>, Cdp.Page.NavigateParams>>();
expectType<Equal<CommandParams<'Page.enable'>, Cdp.Page.EnableParams>>();
expectType<Equal<CommandParams<'Browser.getVersion'>, Record<string, never>>>();
expectType<Equal<CommandResult<'Page.navigate'>, Cdp.Page.NavigateResult>>();
expectType<Equal<CommandResult<'Page.bringToFront'>, Record<string, never>>>();
expectType<Equal<EventPayload<'Page.lifecycleEvent'>, Cdp.Page.LifecycleEventEvent>>();
expectType<Equal<EventPayload<'Page.frameResized'>, undefined>>();
expectType<Equal<Cdp.Page.FrameId, string>>();
// String enums are literal unions.
expectType<Equal<Cdp.Page.NavigateParams['transitionType'], Cdp.Page.TransitionType | undefined>>();
expectType<Equal<'link' extends Cdp.Page.TransitionType ? true : false, true>>();
// Cross-domain closure: Debugger is not allowlisted but Debugger.SearchMatch is referenced.
expectType<Equal<Cdp.Debugger.SearchMatch['lineNumber'], number>>();
// @ts-expect-error Debugger commands are not generated (domain not allowlisted)
expectType<Equal<CommandArgs<'Debugger.enable'>, []>>();

// The committed mini fixture output type-checks and has the same shape.
expectType<Equal<MiniArgs<'Alpha.enable'>, []>>();
expectType<Equal<MiniArgs<'Alpha.configure'>, [params?: MiniCdp.Alpha.ConfigureParams]>>();
expectType<Equal<MiniParams<'Alpha.getNode'>, MiniCdp.Alpha.GetNodeParams>>();
expectType<Equal<MiniPayload<'Alpha.updated'>, undefined>>();
expectType<Equal<MiniPayload<'Beta.frameAttached'>['color'], MiniCdp.Alpha.Color | undefined>>();
expectType<Equal<MiniCdp.Alpha.Color, 'red' | 'green' | 'blue'>>();
expectType<Equal<MiniCdp.Alpha.Tags, ('hot' | 'cold')[]>>();
expectType<Equal<MiniCommandName, 'Alpha.enable' | 'Alpha.getNode' | 'Alpha.configure' | 'Beta.getFrame' | 'Beta.ping'>>();
expectType<Equal<MiniEventName, 'Alpha.updated' | 'Alpha.nodeChanged' | 'Alpha.legacyChanged' | 'Beta.frameAttached' | 'Beta.idle'>>();

const s = suite('protocol/types');

s('the checked names exist at runtime too', () => {
  assert.ok(COMMANDS.has('Page.navigate'));
  assert.ok(COMMANDS.has('Page.enable'));
  assert.ok(COMMANDS.has('Browser.getVersion'));
  assert.ok(COMMANDS.has('Page.setDownloadBehavior'));
  assert.not.ok(COMMANDS.has('Page.setDeviceMetricsOverride'));
  assert.not.ok(COMMANDS.has('Debugger.enable'));
  assert.ok(EVENTS.has('Page.lifecycleEvent'));
  assert.ok(EVENTS.has('Page.downloadWillBegin'));
  assert.not.ok(EVENTS.has('Page.lifecycleEvnt'));
});

s('typing checks run against fakes', async () => {
  const sent: string[] = [];
  const listened: string[] = [];
  const send = ((method: string) => {
    sent.push(method);
    return Promise.resolve({ frameId: 'F', product: 'Chrome' });
  }) as unknown as Send;
  const on = ((event: string) => {
    listened.push(event);
  }) as unknown as On;
  await typingChecks(send, on);
  assert.ok(sent.includes('Page.navigate'));
  assert.ok(listened.includes('Page.lifecycleEvent'));
});

s.run();
