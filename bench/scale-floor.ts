// The floor of many sessions, measured beside bench/scale.ts's steps in the same run: what
// Chromium itself gives N agents clicking at once on this machine, with no server in between.
//
// One browser the bench launches (bench/peers/pipe-browser.ts, the act floor's flags) and, per
// step, N browser contexts (pagewire gives each session its own, so each tab has its own renderer
// here too), each with one tab of fixtures/pages/counter.html. Each tab clicks "Increment"
// (Input.dispatchMouseEvent moved, pressed and released at its centre, aimed once untimed) and then
// reads the whole accessibility tree (Accessibility.getFullAXTree, raw JSON): the fewest calls of a
// click whose answer shows the page after it. All tabs run at once over the one pipe. Nothing is
// checked during the loop and nothing rendered; at the end each tab's counter must show the clicks
// it was sent, since a floor whose clicks did nothing would be no floor.
import { performance } from 'node:perf_hooks';
import { WAIT_FOR_LOAD_JS } from './peers/contender.ts';
import { dispatchClick, PipeBrowser } from './peers/pipe-browser.ts';

/** One context, its tab and where its button is. */
class FloorTab {
  readonly #pipe: PipeBrowser;
  readonly #contextId: string;
  readonly #sessionId: string;
  readonly #point: { x: number; y: number };
  #clicks = 0;

  private constructor(pipe: PipeBrowser, contextId: string, sessionId: string, point: { x: number; y: number }) {
    this.#pipe = pipe;
    this.#contextId = contextId;
    this.#sessionId = sessionId;
    this.#point = point;
  }

  static async open(pipe: PipeBrowser, url: string): Promise<FloorTab> {
    const { browserContextId } = await pipe.send('Target.createBrowserContext', { disposeOnDetach: true });
    const contextId = String(browserContextId);
    try {
      const { targetId } = await pipe.send('Target.createTarget', { url, browserContextId: contextId });
      const { sessionId } = await pipe.send('Target.attachToTarget', { targetId, flatten: true });
      const evaluate = async (expression: string) =>
        ((await pipe.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true }, String(sessionId))).result as {
          value?: unknown;
        }).value;
      await evaluate(WAIT_FOR_LOAD_JS);
      const point = await evaluate(
        "(() => { const button = [...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Increment'); " +
          'if (!button) return null; const r = button.getBoundingClientRect(); return { x: r.x + r.width / 2, y: r.y + r.height / 2 }; })()',
      ) as { x: number; y: number } | null;
      if (!point) throw new Error(`no "Increment" button on ${url}`);
      return new FloorTab(pipe, contextId, String(sessionId), point);
    } catch (error) {
      await pipe.send('Target.disposeBrowserContext', { browserContextId: contextId }).catch(() => {});
      throw error;
    }
  }

  /** Clicks and reads until `until` (performance.now()); latencies of the clicks begun at or after `countFrom`. */
  async clickUntil(until: number, countFrom: number): Promise<number[]> {
    const latencies: number[] = [];
    while (performance.now() < until) {
      const t0 = performance.now();
      await dispatchClick(this.#pipe, this.#sessionId, this.#point);
      await this.#pipe.send('Accessibility.getFullAXTree', {}, this.#sessionId);
      this.#clicks++;
      if (t0 >= countFrom) latencies.push(performance.now() - t0);
    }
    return latencies;
  }

  /** Untimed: the page counted every click it was sent. */
  async check(): Promise<void> {
    const reply = await this.#pipe.send(
      'Runtime.evaluate',
      { expression: "document.getElementById('count').textContent", returnByValue: true },
      this.#sessionId,
    );
    const shown = String((reply.result as { value?: unknown }).value);
    if (shown !== `Count: ${this.#clicks}`) throw new Error(`the floor's tab shows "${shown}" after ${this.#clicks} clicks`);
  }

  async close(): Promise<void> {
    await this.#pipe.send('Target.disposeBrowserContext', { browserContextId: this.#contextId });
  }
}

/** The floor's browser, kept for every step of a run. */
export class ScaleFloor {
  readonly #pipe: PipeBrowser;

  constructor(browser: string, tag: string) {
    this.#pipe = new PipeBrowser(browser, tag);
  }

  /**
   * One step: `sessions` tabs, all opened before its clock starts, clicking for `seconds`; the
   * latencies of the clicks begun after the first `warmMs`.
   */
  async step(sessions: number, url: string, timing: { seconds: number; warmMs: number }): Promise<number[]> {
    const tabs = await Promise.all(Array.from({ length: sessions }, () => FloorTab.open(this.#pipe, url)));
    try {
      const started = performance.now();
      const countFrom = started + timing.warmMs;
      const deadline = started + timing.seconds * 1_000;
      const runs = await Promise.all(tabs.map((tab) => tab.clickUntil(deadline, countFrom)));
      await Promise.all(tabs.map((tab) => tab.check()));
      return runs.flat();
    } finally {
      await Promise.all(tabs.map((tab) => tab.close().catch(() => {})));
    }
  }

  stop(): Promise<void> {
    return this.#pipe.stop();
  }
}
