// The raw CDP floor: the bench launches the same Chromium itself (--remote-debugging-pipe, the
// transport pagewire uses) and sends single commands from this process, with no server, no
// validation and no rendering in between. It is the reference point, not a contender:
//   observe  = one Accessibility.getFullAXTree per frame of the page, sent together (raw JSON,
//              nothing a model reads); a cross-site frame is read on its own session
//   click    = Input.dispatchMouseEvent mouseMoved + mousePressed + mouseReleased at the element's
//              centre (found, scrolled into view, untimed beforehand)
//   fill     = Runtime.callFunctionOn on the field (focus, select its text) + Input.insertText, then
//              the same reads as observe (the field is found untimed beforehand): the fewest
//              calls that type into a field and read the page after it, with no check and no wait
//   type     = the fill's focusing call (caret at the end), then Input.dispatchKeyEvent keyDown (with the
//              character) and keyUp per character, each awaited before the next (a key that opens a
//              dialog must stop the rest, which keys sent at once cannot), then the same reads
//   each act also times its input and one forced layout after it (settled_ms): no read of the
//   changed page can come sooner, so no act with a fresh observation undercuts it
//   select   = one Runtime.callFunctionOn that sets the option and fires input and change, then the same reads
//   navigate = Page.navigate until Page.domContentEventFired, then the first accessibility call
//              (getPartialAXTree of the document node alone): before it answers, no accessibility
//              tree of the new document can be read, so no observation built on it comes sooner
import { performance } from 'node:perf_hooks';
import { type CdpMessage, dispatchClick, PipeBrowser } from './pipe-browser.ts';
import {
  type ActOutcome,
  type Contender,
  errorText,
  mutateJs,
  type NavOutcome,
  type ObserveOutcome,
  type PageSpec,
  type SeriesName,
  utf8,
  WAIT_FOR_LOAD_JS,
} from './contender.ts';
import { INTERACTIVE_ROLES } from './snapshot-text.ts';
import { readPrefix } from '../../src/observe/ax-prefix.ts';
import { axProbes } from '../../src/page/ax-probes.ts';

interface AxNode {
  ignored: boolean;
  role?: { value?: string };
}

export interface CdpFloorOptions {
  /**
   * The read floor: navigate only, and after DOMContentLoaded the prefix read of this many refs
   * (what a fresh observation of the first 150 refs must read at the least), not the first call.
   */
  navigateReads?: number;
  /**
   * The load floor: navigate only, and after the `load` event one whole read of the main frame
   * (`getFullAXTree`), or the prefix read of 151 refs on a page whose whole read takes tens of
   * seconds: what a navigation whose fresh observation waits for `load` must take at the least.
   */
  afterLoad?: boolean;
}

export class CdpFloor implements Contender {
  readonly id: string;
  readonly label: string;
  readonly series: readonly SeriesName[] | undefined;
  version = 'unknown';
  command = '';
  readonly calls = {
    observe: '`Accessibility.getFullAXTree` per frame, sent together (raw JSON); with room for 500 refs: the prefix read of ' +
      'src/observe/ax-prefix.ts (`getPartialAXTree` from the document down until 501 refs by role)',
    click: '`Input.dispatchMouseEvent` ×3 (moved, pressed, released)',
    click_observed: 'not a call of its own: the click, then `Accessibility.getFullAXTree` per frame',
    fill: '`Runtime.callFunctionOn` (focus, select) + `Input.insertText`, then `Accessibility.getFullAXTree` per frame (raw JSON)',
    type: '`Runtime.callFunctionOn` (focus, caret at the end) + `Input.dispatchKeyEvent` keyDown and keyUp per character, each ' +
      'awaited (a key that opens a dialog stops the rest), then `Accessibility.getFullAXTree` per frame (raw JSON)',
    select: '`Runtime.callFunctionOn` (set the option, fire `input` and `change`), then `Accessibility.getFullAXTree` per frame (raw JSON)',
    navigate: '`Page.navigate` until `Page.domContentEventFired`, then the first accessibility call ' +
      '(`DOM.getDocument` depth 0, `Accessibility.getPartialAXTree` of the document node alone)',
  };
  readonly clickObservation: 'second-call' | 'option';
  readonly tag: string;
  readonly #browser: string;
  readonly #navigateReads: number | undefined;
  readonly #afterLoad: boolean;
  #pipe: PipeBrowser | undefined;
  #sessionId = '';
  /** Sessions of the page's cross-site frames (auto-attached), by target id, which is their frame id. */
  readonly #frameSessions = new Map<string, string>();
  /** What one full read asks for: every frame of the page, each on the session that hosts it. */
  #reads: Array<{ sessionId: string; frameId?: string }> = [];

  constructor(tag: string, browser: string, options: CdpFloorOptions = {}) {
    this.tag = tag;
    this.#browser = browser;
    this.#navigateReads = options.navigateReads;
    this.#afterLoad = options.afterLoad === true;
    const reads = options.navigateReads !== undefined || this.#afterLoad;
    this.id = this.#afterLoad ? 'cdp-load-floor' : reads ? 'cdp-read-floor' : 'cdp-floor';
    this.label = this.#afterLoad ? 'raw CDP load floor' : reads ? 'raw CDP read floor' : 'raw CDP floor';
    this.series = reads ? ['navigate'] : undefined;
    this.clickObservation = reads ? 'option' : 'second-call';
    if (reads) {
      const none = 'not run (the read floor measures navigate only)';
      Object.assign(this.calls, { observe: none, click: none, click_observed: none, fill: none, type: none, select: none });
      this.calls.navigate = '`Page.navigate` until `Page.domContentEventFired`, then at once `Runtime.evaluate` of ' +
        "pagewire's in-page probes (src/page/ax-probes.ts) and `DOM.getDocument` depth 0, then the prefix read of " +
        `src/observe/ax-prefix.ts (\`getPartialAXTree\` from those probes and the document down until ${options.navigateReads} refs ` +
        'by role): the fewest accessibility calls known that read the tree of the first refs, with nothing checked or rendered ' +
        '(on every page, where pagewire reads documents under 2,000 elements whole: a floor on the large pages only)';
    }
    if (this.#afterLoad) {
      this.calls.navigate = '`Page.navigate` until `Page.loadEventFired`, then one `Accessibility.getFullAXTree` of the main ' +
        'frame (raw JSON; on the long index, where it takes tens of seconds, the prefix read of 151 refs instead): a fresh ' +
        'observation taken after `load` comes no sooner';
    }
  }

  pids(): number[] {
    return this.#pipe?.pids() ?? [];
  }

  async start(): Promise<void> {
    this.#pipe = new PipeBrowser(this.#browser, this.tag);
    this.command = this.#pipe.command;
    const version = await this.#send('Browser.getVersion', {});
    this.version = String(version.product);
    const { targetId } = await this.#send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await this.#send('Target.attachToTarget', { targetId, flatten: true });
    this.#sessionId = String(sessionId);
    this.#reads = [{ sessionId: this.#sessionId }];
    await this.#send('Page.enable', {}, true);
    await this.#send('Runtime.enable', {}, true);
    // Cross-site frames run in processes of their own; their trees are read on their sessions.
    this.#pipe.listen((message) => {
      const params = message.params as { sessionId?: string; targetInfo?: { targetId: string; type: string } } | undefined;
      if (message.method === 'Target.attachedToTarget' && params?.targetInfo?.type === 'iframe') {
        this.#frameSessions.set(params.targetInfo.targetId, String(params.sessionId));
      } else if (message.method === 'Target.detachedFromTarget') {
        for (const [frameId, sessionId] of this.#frameSessions) if (sessionId === params?.sessionId) this.#frameSessions.delete(frameId);
      }
    });
    await this.#send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: false, flatten: true }, true);
    // Close the tab the browser opened by itself, so the floor holds one page like the others.
    const { targetInfos } = (await this.#send('Target.getTargets', {})) as { targetInfos: Array<{ targetId: string; type: string }> };
    for (const info of targetInfos) {
      if (info.type === 'page' && info.targetId !== targetId) await this.#send('Target.closeTarget', { targetId: info.targetId });
    }
  }

  /** `on`: true for the page's session, or another session's id; the browser's when absent. */
  #send(method: string, params: Record<string, unknown>, on: boolean | string = false): Promise<Record<string, unknown>> {
    if (!this.#pipe) return Promise.reject(new Error('the floor browser is not running'));
    return this.#pipe.send(method, params, on ? (on === true ? this.#sessionId : on) : undefined);
  }

  #event(method: string, timeoutMs = 30_000): { promise: Promise<void>; cancel: () => void } {
    let unlisten: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cancel = () => {
      unlisten?.();
      clearTimeout(timer);
    };
    const promise = new Promise<void>((resolve, reject) => {
      const listener = (message: CdpMessage) => {
        if (message.method === method && message.sessionId === this.#sessionId) {
          cancel();
          resolve();
        }
      };
      unlisten = this.#pipe?.listen(listener);
      timer = setTimeout(() => {
        cancel();
        reject(new Error(`no ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    return { promise, cancel };
  }

  async #evaluate(expression: string): Promise<unknown> {
    const reply = await this.#send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, true);
    const details = reply.exceptionDetails as { text?: string; exception?: { description?: string } } | undefined;
    if (details) throw new Error(`page script failed: ${details.exception?.description ?? details.text}`);
    return (reply.result as { value?: unknown } | undefined)?.value;
  }

  async open(url: string): Promise<void> {
    const outcome = await this.navigate(url);
    if (!outcome.ok) throw new Error(outcome.error);
    await this.#evaluate(WAIT_FOR_LOAD_JS);
    await this.#listFrames();
  }

  /**
   * Untimed: the frames a full read covers. The main frame is read without a frame id, as the
   * floor always read it; child frames in the page's own process are read on its session by id;
   * each cross-site frame is the main frame of its own session. The pages change no frames after
   * load, so the list holds for the page's series.
   */
  async #listFrames(): Promise<void> {
    type FrameTree = { frame: { id: string }; childFrames?: FrameTree[] };
    const reads: Array<{ sessionId: string; frameId?: string }> = [{ sessionId: this.#sessionId }];
    const local = (tree: FrameTree) => {
      for (const child of tree.childFrames ?? []) {
        if (this.#frameSessions.has(child.frame.id)) continue;
        reads.push({ sessionId: this.#sessionId, frameId: child.frame.id });
        local(child);
      }
    };
    const { frameTree } = (await this.#send('Page.getFrameTree', {}, true)) as { frameTree: FrameTree };
    local(frameTree);
    for (const sessionId of this.#frameSessions.values()) reads.push({ sessionId });
    this.#reads = reads;
  }

  /** One full accessibility read of every frame, all sent at once. */
  async #readAll(): Promise<AxNode[]> {
    const replies = await Promise.all(
      this.#reads.map(({ sessionId, frameId }) => this.#send('Accessibility.getFullAXTree', frameId ? { frameId } : {}, sessionId)),
    );
    return replies.flatMap((reply) => (reply.nodes as AxNode[] | undefined) ?? []);
  }

  async observe(): Promise<ObserveOutcome> {
    const nodes = await this.#readAll();
    const interactive = nodes.filter((node) => !node.ignored && INTERACTIVE_ROLES.has(String(node.role?.value ?? ''))).length;
    // Nothing here is for a model: the size reported for the floor is the raw nodes read, for reference.
    return { text: '', interactive, wire_bytes: utf8(JSON.stringify(nodes)) };
  }

  /**
   * The cheapest read of the first 500 refs pagewire knows (its prefix read, src/observe/ax-prefix.ts):
   * getPartialAXTree from the document down, in document order, until 501 refs by role are read,
   * on the main frame (the pages measured with it have no iframes). Raw nodes, nothing rendered.
   * A fill on a page with `floorRead: 'prefix'` reads the same way, to 151 refs.
   */
  observeMore(): Promise<ObserveOutcome> {
    return this.#readPrefix(501);
  }

  async #readPrefix(wanted: number): Promise<ObserveOutcome> {
    const found = (await this.#send(
      'Runtime.evaluate',
      { expression: 'document', serializationOptions: { serialization: 'deep', maxDepth: 0 } },
      true,
    )) as { result: { deepSerializedValue?: { value?: { backendNodeId?: number } } } };
    const documentId = found.result.deepSerializedValue?.value?.backendNodeId;
    if (documentId === undefined) throw new Error('no backendNodeId for the document');
    const read = async (backendNodeId: number) =>
      ((await this.#send('Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: true }, true)) as { nodes: never[] }).nodes;
    const prefix = await readPrefix({ read, documentBackendNodeId: documentId, wanted, cost: { calls: 0, nodes: 0 } });
    if (!prefix) throw new Error('the document has no accessibility tree');
    const nodes = [...prefix.nodes.values()] as AxNode[];
    const interactive = nodes.filter((node) => !node.ignored && INTERACTIVE_ROLES.has(String(node.role?.value ?? ''))).length;
    return { text: '', interactive, wire_bytes: utf8(JSON.stringify(nodes)) };
  }

  async mutate(i: number): Promise<void> {
    await this.#evaluate(mutateJs(i));
  }

  async prepare(_page: PageSpec): Promise<void> {
    // Nothing to resolve: the floor aims at the element right before each click.
  }

  /** Untimed: scroll the element into view and take its centre. */
  async #aim(page: PageSpec): Promise<{ x: number; y: number }> {
    const point = (await this.#evaluate(
      `(() => { const el = ${page.click.js}; if (!el) return null; el.scrollIntoView({ block: 'center', inline: 'center' }); ` +
        `const r = el.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()`,
    )) as { x: number; y: number } | null;
    if (!point) throw new Error(`no element for ${page.click.js}`);
    return point;
  }

  /**
   * Style and layout of the main frame, forced: what any read of the page after a change waits
   * for first (the accessibility tree and a snapshot both need a clean layout). The read after it
   * finds the layout done, so the act's total is not inflated.
   */
  async #layout(): Promise<void> {
    await this.#send('Runtime.evaluate', { expression: 'void document.documentElement.getBoundingClientRect()' }, true);
  }

  /** Times only the dispatch: aiming (and re-scrolling after an anchor jump) is set-up. */
  async click(page: PageSpec): Promise<ActOutcome> {
    try {
      const { x, y } = await this.#aim(page);
      const started = performance.now();
      if (!this.#pipe) throw new Error('the floor browser is not running');
      await dispatchClick(this.#pipe, this.#sessionId, { x, y });
      const ms = performance.now() - started;
      await this.#layout();
      return { ok: true, observation: false, text_bytes: 0, ms, settled_ms: performance.now() - started };
    } catch (error) {
      return { ok: false, observation: false, text_bytes: 0, error: errorText(error) };
    }
  }

  /**
   * Times the focusing call, the insertion and one full read of every frame; finding the field
   * is set-up. Nothing checks where focus went or waits for the page's handlers: what a safe fill
   * adds to this is the cost of its guarantees.
   */
  fill(page: PageSpec, text: string): Promise<ActOutcome> {
    if (!page.fill) return Promise.resolve({ ok: false, observation: false, text_bytes: 0, error: 'the page has no field' });
    const field = page.fill;
    return this.#timedOn(field.js, page, async (objectId) => {
      await this.#send('Runtime.callFunctionOn', { objectId, functionDeclaration: 'function () { this.focus(); this.select(); }' }, true);
      await this.#send('Input.insertText', { text }, true);
    }, async () => {
      const value = await this.#evaluate(`(${field.js}).value`);
      if (value !== text) throw new Error(`the field holds ${JSON.stringify(value)}, not the text typed`);
    });
  }

  /**
   * Times the focusing call, the key events and the read, as the fill does; finding the field is
   * set-up, and so is checking (untimed) that the field ends with what was typed.
   */
  type(page: PageSpec, text: string): Promise<ActOutcome> {
    if (!page.fill) return Promise.resolve({ ok: false, observation: false, text_bytes: 0, error: 'the page has no field' });
    const field = page.fill;
    return this.#timedOn(field.js, page, async (objectId) => {
      const atEnd = 'function () { this.focus(); const end = this.value.length; this.setSelectionRange(end, end); }';
      await this.#send('Runtime.callFunctionOn', { objectId, functionDeclaration: atEnd }, true);
      for (const key of text) {
        await this.#send('Input.dispatchKeyEvent', { type: 'keyDown', key, text: key }, true);
        await this.#send('Input.dispatchKeyEvent', { type: 'keyUp', key }, true);
      }
    }, async () => {
      const value = String(await this.#evaluate(`(${field.js}).value`));
      if (!value.endsWith(text)) throw new Error(`the field holds ${JSON.stringify(value)}, which does not end with the text typed`);
    });
  }

  /** Times the one call that chooses the option and the read; finding the select is set-up. */
  select(page: PageSpec, label: string): Promise<ActOutcome> {
    if (!page.select) return Promise.resolve({ ok: false, observation: false, text_bytes: 0, error: 'the page has no select' });
    const field = page.select;
    return this.#timedOn(field.js, page, async (objectId) => {
      const choose = 'function (label) { const option = [...this.options].find((o) => o.label === label); ' +
        "this.value = option.value; this.dispatchEvent(new Event('input', { bubbles: true })); " +
        "this.dispatchEvent(new Event('change', { bubbles: true })); }";
      await this.#send('Runtime.callFunctionOn', { objectId, functionDeclaration: choose, arguments: [{ value: label }] }, true);
    }, async () => {
      const chosen = await this.#evaluate(`(${field.js}).selectedOptions[0]?.label`);
      if (chosen !== label) throw new Error(`the select shows ${JSON.stringify(chosen)}, not ${JSON.stringify(label)}`);
    });
  }

  /**
   * Finds the element of `js` (untimed), times `input` on it and the page's read after it (as the
   * fill reads), then runs `check` (untimed): a floor whose input did nothing would be no floor.
   */
  async #timedOn(
    js: string,
    page: PageSpec,
    input: (objectId: string) => Promise<void>,
    check: () => Promise<void>,
  ): Promise<ActOutcome> {
    let objectId: string | undefined;
    try {
      const found = await this.#send('Runtime.evaluate', { expression: js }, true);
      objectId = (found.result as { objectId?: string } | undefined)?.objectId;
      if (!objectId) throw new Error(`no element for ${js}`);
      const started = performance.now();
      await input(objectId);
      await this.#layout();
      const settled = performance.now() - started;
      if (page.floorRead === 'prefix') await this.#readPrefix(151);
      else await this.#readAll();
      const ms = performance.now() - started;
      await check();
      return { ok: true, observation: true, text_bytes: 0, ms, settled_ms: settled };
    } catch (error) {
      return { ok: false, observation: false, text_bytes: 0, error: errorText(error) };
    } finally {
      if (objectId) this.#send('Runtime.releaseObject', { objectId }, true).catch(() => {});
    }
  }

  async navigate(url: string, page?: PageSpec): Promise<NavOutcome> {
    const loaded = this.#event(this.#afterLoad ? 'Page.loadEventFired' : 'Page.domContentEventFired');
    try {
      const reply = await this.#send('Page.navigate', { url }, true);
      if (reply.errorText) throw new Error(`Page.navigate: ${String(reply.errorText)}`);
      await loaded.promise;
      if (this.#afterLoad) {
        if (page?.floorRead === 'prefix') return await this.#navigateRead(151);
        await this.#send('Accessibility.getFullAXTree', {}, true);
        return { ok: true, observation: false, text_bytes: 0 };
      }
      if (this.#navigateReads !== undefined) return await this.#navigateRead(this.#navigateReads);
      // The renderer builds the new document's accessibility objects on the first call about it.
      const { root } = await this.#send('DOM.getDocument', { depth: 0 }, true) as { root: { backendNodeId: number } };
      await this.#send('Accessibility.getPartialAXTree', { backendNodeId: root.backendNodeId, fetchRelatives: false }, true);
      return { ok: true, observation: false, text_bytes: 0 };
    } catch (error) {
      loaded.cancel();
      return { ok: false, observation: false, text_bytes: 0, error: errorText(error) };
    }
  }

  /** The read floor's navigation, after DOMContentLoaded (see CdpFloorOptions). */
  async #navigateRead(wanted: number): Promise<NavOutcome> {
    const probed = this.#send('Runtime.evaluate', {
      expression: `(${axProbes.toString()})(${wanted}, 0)`,
      serializationOptions: { serialization: 'deep', maxDepth: 1, additionalParameters: { maxNodeDepth: 0, includeShadowTree: 'none' } },
    }, true);
    const { root } = await this.#send('DOM.getDocument', { depth: 0 }, true) as { root: { backendNodeId: number } };
    const items = ((await probed).result as { deepSerializedValue?: { value?: Array<{ value?: { backendNodeId?: unknown } }> } })
      .deepSerializedValue?.value ?? [];
    const probes = items.slice(1).map((item) => item.value?.backendNodeId).filter((id): id is number => typeof id === 'number');
    const read = async (backendNodeId: number) =>
      ((await this.#send('Accessibility.getPartialAXTree', { backendNodeId, fetchRelatives: true }, true)) as { nodes: never[] }).nodes;
    const prefix = await readPrefix({ read, documentBackendNodeId: root.backendNodeId, wanted, probes, cost: { calls: 0, nodes: 0 } });
    if (!prefix) throw new Error('the document has no accessibility tree');
    return { ok: true, observation: false, text_bytes: 0 };
  }

  async stop(): Promise<void> {
    await this.#pipe?.stop();
  }
}
