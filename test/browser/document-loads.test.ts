// DocumentLoads: a frame's ready_state from its lifecycle events, and the bounded wait for load.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DocumentLoads, LOAD_WAIT_AFTER_DCL_MS } from '../../src/browser/document-loads.ts';

const s = suite('document loads');

s('ready_state follows commit, DOMContentLoaded and load of the same loader', () => {
  const loads = new DocumentLoads();
  assert.is(loads.readyState('F', 'L1'), 'loading', 'not heard of yet');
  loads.onLifecycle('F', 'L1', 'init');
  assert.is(loads.readyState('F', 'L1'), 'loading');
  loads.onLifecycle('F', 'L1', 'DOMContentLoaded');
  assert.is(loads.readyState('F', 'L1'), 'interactive');
  loads.onLifecycle('F', 'L1', 'firstPaint');
  assert.is(loads.readyState('F', 'L1'), 'interactive');
  loads.onLifecycle('F', 'L1', 'load');
  assert.is(loads.readyState('F', 'L1'), 'complete');
  loads.onLifecycle('F', 'L2', 'init');
  assert.is(loads.readyState('F', 'L2'), 'loading', 'a new document starts over');
  assert.is(loads.readyState('F', 'L1'), 'loading', 'the old one is no longer known');
});

s('a replayed load of a document met late counts (enabling lifecycle events replays them)', () => {
  const loads = new DocumentLoads();
  loads.onLifecycle('F', 'L1', 'commit');
  loads.onLifecycle('F', 'L1', 'DOMContentLoaded');
  loads.onLifecycle('F', 'L1', 'load');
  assert.is(loads.readyState('F', 'L1'), 'complete');
});

s('whenLoaded: at once when complete; on load; replaced by another document or a detached frame', async () => {
  const loads = new DocumentLoads();
  loads.onLifecycle('F', 'L1', 'load');
  assert.equal(await loads.whenLoaded('F', 'L1', 10_000).promise, { kind: 'complete' });
  loads.onLifecycle('G', 'M1', 'DOMContentLoaded');
  const onLoad = loads.whenLoaded('G', 'M1', 10_000).promise;
  loads.onLifecycle('G', 'M1', 'load');
  assert.equal(await onLoad, { kind: 'complete' });
  loads.onLifecycle('H', 'N1', 'init');
  const replaced = loads.whenLoaded('H', 'N1', 10_000).promise;
  loads.onLifecycle('H', 'N2', 'init');
  assert.equal(await replaced, { kind: 'replaced' });
  loads.onLifecycle('I', 'P1', 'init');
  const detached = loads.whenLoaded('I', 'P1', 10_000).promise;
  loads.forget('I');
  assert.equal(await detached, { kind: 'replaced' });
});

s("whenLoaded: bounded by the caller's time, and by the bound after DOMContentLoaded", async () => {
  let now = 0;
  const loads = new DocumentLoads(() => now);
  loads.onLifecycle('F', 'L1', 'DOMContentLoaded');
  // Already past the bound when asked: not a wait of this caller's.
  now = LOAD_WAIT_AFTER_DCL_MS + 1;
  assert.equal(await loads.whenLoaded('F', 'L1', 10_000).promise, { kind: 'bound', waited: false });
  // The caller's own bound, with a real timer of a few ms.
  const real = new DocumentLoads();
  real.onLifecycle('F', 'L1', 'DOMContentLoaded');
  assert.equal(await real.whenLoaded('F', 'L1', 5).promise, { kind: 'bound', waited: true });
  assert.is(real.readyState('F', 'L1'), 'interactive');
});

s.run();
