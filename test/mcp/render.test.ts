// What a model reads of an act (src/mcp/render.ts): each id once, completed actions in words, and
// what is in the way with the refs to use next.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { actText, observationText } from '../../src/mcp/render.ts';

const s = suite('mcp render');

const observation = {
  state_id: 'st_1a2b3c4d_9',
  target_id: 'T1',
  frame_id: 'T1',
  session_id: 'S1',
  title: 'Ferry timetable',
  url: 'http://127.0.0.1/news',
  tree: 'link "See the full timetable" @3',
};

s("an act's fresh observation names its state once, and neither the act's tab, its main frame nor its session", () => {
  const text = actText({
    status: 'action_failed',
    execution: 'dispatched_unknown',
    observation: 'captured',
    postcondition: 'not_requested',
    completed: [],
    error_type: 'click_intercepted',
    error_text: 'another element is on top of the target',
    hit: { role: 'region', name: 'Cookie banner', tag: 'div', ref: '@7', dismiss_ref: '@9' },
    fresh_state: observation,
  }, []);
  for (const id of ['st_1a2b3c4d_9']) assert.is(text.split(id).length - 1, 1, text);
  for (const id of ['T1', 'S1']) assert.not.ok(text.includes(id), text);
  assert.ok(text.includes('no action completed'), text);
  assert.ok(text.includes('region "Cookie banner" <div> @7; @9 dismisses it'), text);
});

s('completed actions are named by position, never read as a count', () => {
  const text = actText({
    status: 'completed',
    execution: 'completed',
    observation: 'captured',
    postcondition: 'not_requested',
    completed: [0],
  }, []);
  assert.ok(text.includes('completed: action #1'), text);
  assert.not.ok(text.includes('completed: 0'), text);
});

s('observe names the tab and session once, and a frame only when it is not the main one', () => {
  assert.is(observationText(observation).split('\n')[0], 'state_id st_1a2b3c4d_9 · tab T1 · session S1');
  assert.ok(observationText({ ...observation, frame_id: 'F2' }).includes('frame F2'));
});

s.run();
