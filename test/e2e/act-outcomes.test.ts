// Every (status, execution, observation, postcondition, error_type) combination act produces,
// one scenario a row, against a real page and a real client (PROTOCOL.md §7, "Result"). The
// rows that kill the browser, crash a renderer or close a tab behind the server's back run on a
// private server. All rows run, then every one that differs from its expected outcome is listed.
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { documentLoaded, evaluate, pageCallSent, tabOf } from '../helpers/page.ts';
import { sharedServer, startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

/** The five words a row pins; `error_type` absent means the result must carry none. */
interface Outcome {
  status: string;
  execution: string;
  observation: string;
  postcondition: string;
  error_type?: string;
}

/** A server, a client and a session of it, with the page helpers the rows use. */
class Stage {
  readonly server: TestServer;
  readonly client: TestClient;
  readonly sessionId: string;

  constructor(server: TestServer, client: TestClient, sessionId: string) {
    this.server = server;
    this.client = client;
    this.sessionId = sessionId;
  }

  static async open(server: TestServer, name: string): Promise<Stage> {
    const client = await server.connect();
    const { session_id } = await client.call<{ session_id: string }>('session.create', { name });
    return new Stage(server, client, session_id);
  }

  /** The cart in a fresh tab, the session's only one, observed with its deals frame. */
  async cart(): Promise<Observation> {
    const { target_id } = await this.client.call<{ target_id: string }>('tabs.new', {
      session_id: this.sessionId,
      url: fixtures.url('/cart.html'),
    });
    const { tabs } = await this.client.call<{ tabs: Array<{ target_id: string }> }>('tabs.list', { session_id: this.sessionId });
    for (const tab of tabs) {
      if (tab.target_id !== target_id) await this.client.call('tabs.close', { session_id: this.sessionId, target_id: tab.target_id });
    }
    let o = await this.observe();
    for (let i = 0; i < 100 && !o.elements.some((e) => e.name === 'Frame button 1'); i++) o = await this.observe();
    return o;
  }

  observe(params: Record<string, unknown> = {}): Promise<Observation> {
    return this.client.call<Observation>('observe', { session_id: this.sessionId, ...params });
  }

  act(params: Record<string, unknown>): Promise<ActResult> {
    return this.client.call<ActResult>('act', { session_id: this.sessionId, ...params });
  }

  /** Resolves once the cart's status line reads `text`: the act's input has landed. */
  async statusReads(targetId: string, text: string): Promise<void> {
    for (let i = 0; i < 1_000; i++) {
      if ((await evaluate<string>(this.server, targetId, `document.getElementById('status').textContent`)) === text) return;
    }
    throw new Error(`the status never read ${text}`);
  }

  /** An act that clicks Add to cart, then waits for text that never shows, until `interrupt` runs. */
  async interruptedWait(
    interrupt: (o: Observation) => Promise<unknown>,
    extra: Record<string, unknown> = {},
    sent: (params: Record<string, unknown>) => void = () => {},
  ): Promise<ActResult> {
    const o = await this.cart();
    const params = {
      state_id: o.state_id,
      action: 'click',
      ref: ref(o, 'Add to cart'),
      wait_for: { text: 'Order shipped' },
      timeout_ms: 30_000,
      ...extra,
    };
    sent(params);
    // Interrupted only once the act waits for its condition: its click acknowledged, as the rows say.
    const waiting = pageCallSent(tabOf(this.server, o.target_id).session, 'waitInPage');
    const running = this.act(params);
    await this.statusReads(o.target_id, 'Added 1');
    await Promise.race([waiting, running]);
    const started = Date.now();
    await interrupt(o);
    const r = await running;
    assert.ok(Date.now() - started < 10_000, `the act ended ${Date.now() - started} ms after the interruption, not at its budget`);
    return r;
  }
}

const ran = (postcondition = 'not_requested'): Outcome => ({
  status: postcondition === 'met' ? 'verified' : postcondition === 'unmet' ? 'condition_not_met' : 'completed',
  execution: 'completed',
  observation: 'captured',
  postcondition,
});
const refused = (status: string, error_type: string, postcondition = 'not_requested'): Outcome => ({
  status,
  execution: 'not_dispatched',
  observation: 'unavailable',
  postcondition,
  error_type,
});

/** Refused before input, with the page as it is now (the refusal consumed the state). */
const refusedObserved = (status: string, error_type: string): Outcome => ({
  ...refused(status, error_type),
  observation: 'captured',
});

/** A navigation begun and not acknowledged (no DOMContentLoaded of its document) when the budget ran out. */
const navigationTimedOut: Outcome = {
  status: 'action_failed',
  execution: 'dispatched_unknown',
  observation: 'captured',
  postcondition: 'not_requested',
  error_type: 'timeout',
};

interface Row {
  scenario: string;
  expected: Outcome;
  /**
   * The other outcome Chromium's own ordering allows, where PROTOCOL.md §7 says so: a click whose
   * handler closes the tab is acknowledged or not, as the browser answers the input before or
   * after it closes the tab.
   */
  orElse?: Outcome;
  /** On the private server: the row kills, crashes or closes things behind the server's back. */
  private?: true;
  run(stage: Stage): Promise<ActResult>;
}

const ROWS: Row[] = [
  // ---- refused before dispatch (steps 2–6) ----
  {
    scenario: 'unknown state_id',
    expected: refused('stale_observation', 'unknown_state'),
    run: async (st) => st.act({ state_id: 'st_00000000_1', action: 'click', ref: ref(await st.cart(), 'Add to cart') }),
  },
  {
    scenario: 'unknown state_id, with expect',
    expected: refused('stale_observation', 'unknown_state', 'unknown'),
    run: async (st) =>
      st.act({
        state_id: 'st_00000000_1',
        action: 'click',
        ref: ref(await st.cart(), 'Add to cart'),
        expect: { selector: '#status', text: 'Added 1' },
      }),
  },
  {
    scenario: 'a state already consumed',
    expected: refusedObserved('stale_observation', 'stale_state'),
    run: async (st) => {
      const o = await st.cart();
      await st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
    },
  },
  {
    scenario: 'the tab closed before the act',
    expected: refused('stale_observation', 'target_changed'),
    run: async (st) => {
      const o = await st.cart();
      await st.client.call('tabs.new', { session_id: st.sessionId, select: false });
      await st.client.call('tabs.close', { session_id: st.sessionId, target_id: o.target_id });
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
    },
  },
  {
    scenario: 'a same-URL reload before the act',
    expected: refusedObserved('stale_observation', 'document_changed'),
    run: async (st) => {
      const o = await st.cart();
      const tab = tabOf(st.server, o.target_id);
      const loaded = new Promise((resolve) => tab.events.on('navigated', resolve));
      await tab.session.send('Page.reload');
      await loaded;
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
    },
  },
  {
    scenario: 'a ref the state never had',
    expected: refusedObserved('stale_reference', 'ref_not_found'),
    run: async (st) => st.act({ state_id: (await st.cart()).state_id, action: 'click', ref: '@9999' }),
  },
  {
    scenario: 'the node re-rendered (replaced by a twin) before the act',
    expected: refusedObserved('stale_reference', 'node_detached'),
    run: async (st) => {
      const o = await st.cart();
      await evaluate(
        st.server,
        o.target_id,
        `(() => { const b = document.querySelector('[data-action=add]'); b.replaceWith(b.cloneNode(true)); })()`,
      );
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
    },
  },
  {
    scenario: 'a state observed while a dialog was open',
    expected: refusedObserved('action_failed', 'modal_blocked'),
    run: async (st) => {
      const o = await st.cart();
      const opened = await st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Empty cart') });
      try {
        return await st.act({ state_id: opened.fresh_state!['state_id'], action: 'click', ref: ref(o, 'Add to cart') });
      } finally {
        await st.client.call('dialog.handle', { session_id: st.sessionId, accept: false });
      }
    },
  },
  {
    scenario: 'an upload path outside the uploads root',
    expected: refusedObserved('action_failed', 'forbidden'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'upload', ref: ref(o, 'Attach a photo of the damage'), paths: ['/etc/passwd'] });
    },
  },
  {
    scenario: 'a renderer that crashed before the act',
    private: true,
    expected: refused('stale_observation', 'document_changed'),
    run: async (st) => {
      const o = await st.cart();
      const tab = tabOf(st.server, o.target_id);
      const crashed = new Promise<void>((resolve) => st.server.server.host.current!.events.on('tabCrashed', () => resolve()));
      tab.session.send('Page.crash').catch(() => {});
      await crashed;
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
    },
  },

  // ---- dispatched, and stopped by a check or a failure ----
  {
    scenario: 'click_intercepted: a consent banner over the button',
    expected: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      error_type: 'click_intercepted',
    },
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Apply coupon') });
    },
  },
  {
    scenario: 'focus_mismatch: an editor takes the focus from the field',
    expected: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      error_type: 'focus_mismatch',
    },
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'type', ref: ref(o, 'Gift message'), text: 'Happy birthday' });
    },
  },
  {
    scenario: 'not_visible: the button was hidden after the observation',
    expected: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      error_type: 'not_visible',
    },
    run: async (st) => {
      const o = await st.cart();
      await evaluate(st.server, o.target_id, `document.getElementById('undo').classList.add('d-none')`);
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Undo') });
    },
  },
  {
    scenario: "a later action's node removed by an earlier one",
    expected: {
      status: 'stale_reference',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      error_type: 'node_detached',
    },
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        actions: [{ action: 'click', ref: ref(o, 'Clear saved items') }, { action: 'click', ref: ref(o, 'Move Green cup to cart') }],
      });
    },
  },
  {
    scenario: "a later action's frame removed by an earlier one",
    expected: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      error_type: 'frame_detached',
    },
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        actions: [{ action: 'click', ref: ref(o, 'Close deals') }, { action: 'click', ref: ref(o, 'Frame button 1') }],
      });
    },
  },
  {
    scenario: 'a navigation error (connection refused)',
    expected: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      error_type: 'action_failed',
    },
    run: async (st) => st.act({ state_id: (await st.cart()).state_id, action: 'navigate', url: 'http://127.0.0.1:9/unreachable' }),
  },
  {
    scenario: 'a navigation that outlasts the budget',
    expected: navigationTimedOut,
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Express checkout'), timeout_ms: 1_500 });
    },
  },
  {
    // §7 execution: a navigation is acknowledged by its new document's DOMContentLoaded, not by the
    // browser accepting the command. This one commits at once (Page.navigate answers) and its parser
    // then waits on a script longer than the budget.
    scenario: 'a navigation that commits but does not reach DOMContentLoaded within the budget',
    expected: navigationTimedOut,
    run: async (st) =>
      st.act({ state_id: (await st.cart()).state_id, action: 'navigate', url: fixtures.url('/slow-script?ms=5000'), timeout_ms: 1_500 }),
  },

  // ---- interrupted ----
  {
    scenario: 'a dialog opened by the only action',
    expected: { status: 'interrupted', execution: 'dispatched_unknown', observation: 'captured', postcondition: 'not_requested' },
    run: async (st) => {
      const o = await st.cart();
      try {
        return await st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Empty cart') });
      } finally {
        await st.client.call('dialog.handle', { session_id: st.sessionId, accept: false });
      }
    },
  },
  {
    scenario: 'a dialog interrupting a batch',
    expected: { status: 'interrupted', execution: 'dispatched_unknown', observation: 'captured', postcondition: 'not_requested' },
    run: async (st) => {
      const o = await st.cart();
      try {
        const actions = [{ action: 'click', ref: ref(o, 'Add to cart') }, { action: 'click', ref: ref(o, 'Empty cart') }, {
          action: 'click',
          ref: ref(o, 'Add to cart'),
        }];
        const r = await st.act({ state_id: o.state_id, actions });
        assert.equal(r.completed, [0]);
        return r;
      } finally {
        await st.client.call('dialog.handle', { session_id: st.sessionId, accept: false });
      }
    },
  },
  {
    scenario: 'a popup interrupting a batch',
    expected: { status: 'interrupted', execution: 'completed', observation: 'captured', postcondition: 'not_requested' },
    run: async (st) => {
      const o = await st.cart();
      const r = await st.act({
        state_id: o.state_id,
        actions: [{ action: 'click', ref: ref(o, 'View receipt') }, { action: 'click', ref: ref(o, 'Add to cart') }],
      });
      assert.equal(r.completed, [0]);
      return r;
    },
  },
  {
    scenario: 'a navigation interrupting a batch',
    expected: { status: 'interrupted', execution: 'completed', observation: 'captured', postcondition: 'not_requested' },
    run: async (st) => {
      const o = await st.cart();
      const actions = [{ action: 'click', ref: ref(o, 'Add to cart') }, { action: 'click', ref: ref(o, 'Continue to payment') }, {
        action: 'click',
        ref: ref(o, 'Add to cart'),
      }];
      const r = await st.act({ state_id: o.state_id, actions });
      assert.equal(r.completed, [0, 1]);
      return r;
    },
  },
  {
    scenario: 'a navigation interrupting a batch, with expect',
    expected: { status: 'interrupted', execution: 'completed', observation: 'captured', postcondition: 'unknown' },
    run: async (st) => {
      const o = await st.cart();
      const actions = [{ action: 'click', ref: ref(o, 'Add to cart') }, { action: 'click', ref: ref(o, 'Continue to payment') }, {
        action: 'click',
        ref: ref(o, 'Add to cart'),
      }];
      return st.act({ state_id: o.state_id, actions, expect: { selector: '#status', text: 'Added 2' } });
    },
  },

  // ---- ran; postconditions ----
  {
    // The same page once its script comes within the budget: DOMContentLoaded acknowledges it.
    scenario: 'a navigation whose new document reaches DOMContentLoaded',
    expected: ran(),
    run: async (st) => st.act({ state_id: (await st.cart()).state_id, action: 'navigate', url: fixtures.url('/slow-script?ms=200') }),
  },
  {
    scenario: 'a click, nothing asked',
    expected: ran(),
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart') });
    },
  },
  {
    scenario: 'check on a box that is already checked: nothing to dispatch',
    expected: { status: 'completed', execution: 'not_dispatched', observation: 'captured', postcondition: 'not_requested' },
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'check', ref: ref(o, 'Gift wrap'), checked: true });
    },
  },
  {
    scenario: 'a link that becomes a download',
    expected: ran(),
    run: async (st) => st.act({ state_id: (await st.cart()).state_id, action: 'navigate', url: fixtures.url('/download/report.txt') }),
  },
  {
    scenario: 'expect met',
    expected: ran('met'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        expect: { selector: '#status', text: 'Added 1' },
      });
    },
  },
  {
    scenario: 'expect unmet',
    expected: ran('unmet'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        expect: { selector: '#status', text: 'Added 9' },
      });
    },
  },
  {
    scenario: 'expect whose selector matches nothing',
    expected: ran('unmet'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        expect: { selector: '#no-such-thing', text: 'Added 1' },
      });
    },
  },
  {
    scenario: 'expect whose selector is not CSS',
    expected: {
      status: 'action_failed',
      execution: 'completed',
      observation: 'captured',
      postcondition: 'unknown',
      error_type: 'invalid_params',
    },
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        expect: { selector: '#status[', text: 'Added 1' },
      });
    },
  },
  {
    scenario: 'wait_for text met',
    expected: ran('met'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Save for later'), wait_for: { text: 'Saved for later' } });
    },
  },
  {
    scenario: 'wait_for url met after a navigation',
    expected: ran('met'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Continue to payment'),
        wait_for: { url: `${fixtures.origin}/child.html` },
      });
    },
  },
  {
    scenario: 'wait_for text until the budget runs out',
    expected: ran('unmet'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        wait_for: { text: 'Order shipped' },
        timeout_ms: 1_500,
      });
    },
  },
  {
    scenario: 'wait_for url until the budget runs out',
    expected: ran('unmet'),
    run: async (st) => {
      const o = await st.cart();
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        wait_for: { url: '*/shipped' },
        timeout_ms: 1_500,
      });
    },
  },
  {
    scenario: 'wait_for whose selector is not CSS',
    expected: {
      status: 'action_failed',
      execution: 'completed',
      observation: 'captured',
      postcondition: 'unknown',
      error_type: 'invalid_params',
    },
    run: async (st) => {
      const o = await st.cart();
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), wait_for: { selector: '.toast[' } });
    },
  },
  {
    scenario: 'a click that closes its own tab (a receipt window)',
    expected: {
      status: 'completed',
      execution: 'completed',
      observation: 'unavailable',
      postcondition: 'not_requested',
      error_type: 'target_not_found',
    },
    orElse: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'unavailable',
      postcondition: 'not_requested',
      error_type: 'target_not_found',
    },
    run: async (st) => receiptClosed(st, {}),
  },
  {
    scenario: 'a click that closes its own tab, with expect',
    expected: {
      status: 'action_failed',
      execution: 'completed',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'target_not_found',
    },
    orElse: {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'target_not_found',
    },
    run: async (st) => receiptClosed(st, { expect: { selector: '#total', text: '$12.00' } }),
  },

  // ---- request ids ----
  {
    scenario: 'request_id replayed',
    expected: ran(),
    run: async (st) => {
      const o = await st.cart();
      const params = { state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), request_id: `replay-${o.state_id}` };
      await st.act(params);
      const replay = await st.act(params);
      assert.is(replay.replayed, true);
      return replay;
    },
  },
  {
    scenario: 'request_id reused with other params',
    expected: refused('request_id_conflict', 'request_id_conflict'),
    run: async (st) => {
      const o = await st.cart();
      await st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), request_id: `conflict-${o.state_id}` });
      return st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Empty cart'), request_id: `conflict-${o.state_id}` });
    },
  },
  {
    scenario: 'request_id reused with other params, with expect',
    expected: refused('request_id_conflict', 'request_id_conflict', 'unknown'),
    run: async (st) => {
      const o = await st.cart();
      await st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), request_id: `conflict-x-${o.state_id}` });
      return st.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        request_id: `conflict-x-${o.state_id}`,
        expect: { selector: '#status', text: 'Added 1' },
      });
    },
  },

  // ---- cancelled, or the page, the tab or the browser lost mid-act ----
  {
    scenario: 'cancel mid wait_for',
    expected: {
      status: 'outcome_unknown',
      execution: 'completed',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'operation_cancelled',
    },
    run: (st) => st.interruptedWait(() => st.client.call('cancel', { session_id: st.sessionId })),
  },
  {
    scenario: 'a cancelled request replayed',
    expected: {
      status: 'outcome_unknown',
      execution: 'completed',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'operation_cancelled',
    },
    run: async (st) => {
      let sent: Record<string, unknown> = {};
      await st.interruptedWait(() => st.client.call('cancel', { session_id: st.sessionId }), {
        request_id: `cancelled-${crypto.randomUUID()}`,
      }, (params) => (sent = params));
      const replay = await st.act(sent);
      assert.is(replay.replayed, true);
      return replay;
    },
  },
  {
    scenario: 'the session closed under an act queued behind another',
    expected: {
      status: 'outcome_unknown',
      execution: 'not_dispatched',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'operation_cancelled',
    },
    run: async (st) => {
      const own = await Stage.open(st.server, 'closing');
      const o = await own.cart();
      // Closed only once the running act waits for its condition: its click acknowledged.
      const waiting = pageCallSent(tabOf(own.server, o.target_id).session, 'waitInPage');
      const running = own.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'Add to cart'), wait_for: { text: 'Order shipped' } });
      const queued = own.act({
        state_id: o.state_id,
        action: 'click',
        ref: ref(o, 'Add to cart'),
        expect: { selector: '#status', text: 'Added 2' },
      });
      await own.statusReads(o.target_id, 'Added 1');
      await Promise.race([waiting, running]);
      await own.client.call('session.close', { session_id: own.sessionId });
      const closedMidWait = await running;
      assert.equal(
        [closedMidWait.status, closedMidWait.execution, closedMidWait.error_type],
        ['outcome_unknown', 'completed', 'operation_cancelled'],
        'the running act: its click had been acknowledged',
      );
      own.client.close();
      return queued;
    },
  },
  {
    scenario: 'the tab closed mid wait_for',
    private: true,
    expected: {
      status: 'action_failed',
      execution: 'completed',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'target_not_found',
    },
    run: (st) =>
      st.interruptedWait(async (o) => {
        await st.server.server.host.current!.connection.root.send('Target.closeTarget', { targetId: o.target_id });
      }),
  },
  {
    scenario: 'the renderer crashed mid wait_for',
    private: true,
    expected: {
      status: 'action_failed',
      execution: 'completed',
      observation: 'captured',
      postcondition: 'unknown',
      error_type: 'document_changed',
    },
    run: (st) =>
      st.interruptedWait(async (o) => {
        tabOf(st.server, o.target_id).session.send('Page.crash').catch(() => {});
      }),
  },
  {
    scenario: 'the browser killed mid wait_for',
    private: true,
    expected: {
      status: 'action_failed',
      execution: 'completed',
      observation: 'unavailable',
      postcondition: 'unknown',
      error_type: 'browser_unavailable',
    },
    run: (st) =>
      st.interruptedWait(async () => {
        process.kill(st.server.server.host.pid!, 'SIGKILL');
      }),
  },
];

/** Opens the receipt popup from the cart, then clicks its Close button, which closes that tab. */
async function receiptClosed(st: Stage, extra: Record<string, unknown>): Promise<ActResult> {
  const o = await st.cart();
  const opened = await st.act({ state_id: o.state_id, action: 'click', ref: ref(o, 'View receipt') });
  const popup = opened.events.find((e) => e.kind === 'popup');
  if (!popup) throw new Error(`no popup: ${JSON.stringify(opened.events)}`);
  const targetId = popup.data['target_id'] as string;
  // The popup is reported as it opens: observe it once its document is there.
  await documentLoaded(st.server, targetId, '/receipt.html');
  const receipt = await st.observe({ target_id: targetId });
  return st.act({ state_id: receipt.state_id, target_id: targetId, action: 'click', ref: ref(receipt, 'Close receipt'), ...extra });
}

const pinned = (r: Outcome): Outcome => ({
  status: r.status,
  execution: r.execution,
  observation: r.observation,
  postcondition: r.postcondition,
  ...(r.error_type !== undefined ? { error_type: r.error_type } : {}),
});

const s = suite('act outcomes');
let fixtures: FixtureServer;

s('every outcome act can produce, one scenario a row, against PROTOCOL.md §7', async () => {
  fixtures = await fixtureServer();
  const shared = await Stage.open(await sharedServer(), 'act-outcomes');
  const privateServer = await startTestServer();
  const faults = await Stage.open(privateServer, 'act-outcomes-faults');
  const wrong: string[] = [];
  try {
    for (const row of ROWS) {
      let actual: Outcome | string;
      let detail = '';
      try {
        const r = await row.run(row.private ? faults : shared);
        actual = pinned(r);
        detail = r.error_text ?? '';
        // §7: fresh_state is present exactly when observation is captured.
        if ((r.fresh_state !== undefined) !== (r.observation === 'captured')) {
          actual = `${JSON.stringify(actual)} but fresh_state ${r.fresh_state ? 'present' : 'absent'}`;
        }
      } catch (error) {
        actual = `threw ${(error as Error).stack ?? String(error)}`;
      }
      const allowed = [row.expected, ...(row.orElse ? [row.orElse] : [])].map((outcome) => JSON.stringify(pinned(outcome)));
      if (typeof actual === 'string' || !allowed.includes(JSON.stringify(actual))) {
        wrong.push(
          `${row.scenario}\n    expected ${JSON.stringify(pinned(row.expected))}\n    actual   ${
            typeof actual === 'string' ? actual : JSON.stringify(actual)
          }${detail ? `\n    (${detail})` : ''}`,
        );
      }
    }
  } finally {
    await shared.client.call('session.close', { session_id: shared.sessionId }).catch(() => {});
    shared.client.close();
    faults.client.close();
    await privateServer.server.close();
  }
  assert.ok(wrong.length === 0, `${wrong.length} of ${ROWS.length} rows differ:\n${wrong.join('\n')}`);
});

s.run();
