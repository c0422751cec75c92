// What the trace view shows of each step (src/inspector/trace-steps.ts): the observation acted on
// and the next one, the acted refs, and the events during and after the step.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readTrace } from '../../src/inspector/trace-file.ts';
import { stepViews } from '../../src/inspector/trace-steps.ts';
import { traceZip } from '../helpers/trace-zip.ts';

const s = suite('inspector trace steps');

const AT = Date.UTC(2026, 11, 6, 21, 0, 0);
const observed = (state_id: string, tree: string) => ({
  state_id,
  target_id: 'T',
  title: 'Shop',
  url: 'http://shop.test/',
  tree,
  elements: [],
});

s('each step: the observation it acted on, the next one, its refs, its events and those after it', async () => {
  const steps = [
    { seq: 1, method: 'observe', tab_id: 'T', at: AT, duration_ms: 50, params: {}, result: observed('s1', 'button "Buy" @1') },
    {
      seq: 2,
      method: 'act',
      tab_id: 'T',
      at: AT + 100,
      duration_ms: 80,
      params: { state_id: 's1', action: 'click', ref: '@1' },
      result: { status: 'completed', execution: 'completed', fresh_state: observed('s2', 'status "Added"') },
      acted_on: 1,
    },
    { seq: 3, method: 'tabs.list', tab_id: 'T', at: AT + 500, duration_ms: 5, params: {}, result: { tabs: [] } },
  ];
  const events = [
    { seq: 1, step: 2, at: AT + 120, kind: 'console', data: { level: 'info', text: 'added' } },
    { seq: 2, at: AT + 300, kind: 'navigation', data: { frame_id: 'F', url: 'http://shop.test/cart', same_document: true } },
  ];
  const views = stepViews(await readTrace('t.zip', traceZip({ steps, events })));
  assert.equal(views.map((view) => [view.before?.state_id, view.after?.state_id]), [[undefined, 's1'], ['s1', 's2'], ['s2', undefined]]);
  assert.equal(views[1]!.refs, ['@1']);
  assert.equal(views[1]!.events.map((event) => event.seq), [1]);
  assert.equal(views[1]!.after_events.map((event) => event.seq), [2], 'an event between steps goes after the last step begun');
  assert.equal(views[1]!.row, { text: 'act click @1 → completed', tone: 'ok' });
});

s.run();
