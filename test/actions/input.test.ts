import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mouseMove, unbufferedInput } from '../../src/actions/input.ts';
import { CdpSession, type SessionChannel } from '../../src/cdp/session.ts';

/** A session whose calls are recorded and answered (or failed) by the test, one by one. */
function scriptedSession(): { session: CdpSession; calls: Array<{ method: string; params: unknown; answer(ok?: boolean): void }> } {
  const calls: Array<{ method: string; params: unknown; answer(ok?: boolean): void }> = [];
  const channel: SessionChannel = {
    call: (_sessionId, method, params) =>
      new Promise((resolve, reject) => {
        calls.push({ method, params, answer: (ok = true) => (ok ? resolve({}) : reject(new Error(`${method} failed`))) });
      }),
  };
  return { session: new CdpSession({ id: 'S', targetType: 'page', targetId: 'T', channel }), calls };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

const s = suite('input');

s('unbuffered input: DOM.enable then Overlay.enable, sent together, once per session', async () => {
  const { session, calls } = scriptedSession();
  const first = unbufferedInput(session);
  const second = unbufferedInput(session);
  assert.is(first, second, 'the same promise for the same session');
  assert.equal(
    calls.map((c) => c.method),
    ['DOM.enable', 'Overlay.enable'],
    'Overlay.enable goes out without waiting for DOM.enable (the renderer runs them in order)',
  );
  for (const call of calls) call.answer();
  await first;
  await unbufferedInput(session);
  assert.is(calls.length, 2, 'nothing more is sent once it is on');
  const other = scriptedSession();
  void unbufferedInput(other.session);
  assert.is(other.calls.length, 2, 'another session gets its own');
});

s('unbuffered input: a refusal resolves (input stays buffered) and is not asked again', async () => {
  const { session, calls } = scriptedSession();
  const ready = unbufferedInput(session);
  calls[0]!.answer(false);
  calls[1]!.answer(false);
  await ready;
  await unbufferedInput(session);
  assert.is(calls.length, 2);
});

s('mouseMove: the move is dispatched only once unbuffered input is settled', async () => {
  const { session, calls } = scriptedSession();
  const moved = mouseMove({ session, x: 10, y: 20 }, 8)();
  await tick();
  assert.equal(calls.map((c) => c.method), ['DOM.enable', 'Overlay.enable']);
  calls[0]!.answer();
  await tick();
  assert.is(calls.length, 2, 'still waiting for Overlay.enable');
  calls[1]!.answer();
  await tick();
  assert.is(calls[2]?.method, 'Input.dispatchMouseEvent');
  assert.equal(calls[2]!.params, { type: 'mouseMoved', x: 10, y: 20, modifiers: 8 });
  calls[2]!.answer();
  await moved;
});

s.run();
