// What a model reads of an act (src/mcp/render.ts): each id once, completed actions in words, and
// what is in the way with the refs to use next.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IdsSaid } from '../../src/mcp/ids-said.ts';
import { actText, observationText, screenshotText } from '../../src/mcp/render.ts';

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

s("an act's fresh observation names its state once, and neither the tab said before, its main frame nor the default session", () => {
  const ids = new IdsSaid(() => 'S1');
  ids.say('S1', 'T1');
  const text = actText(
    {
      status: 'action_failed',
      execution: 'dispatched_unknown',
      observation: 'captured',
      postcondition: 'not_requested',
      completed: [],
      error_type: 'click_intercepted',
      error_text: 'another element is on top of the target',
      hit: { role: 'region', name: 'Cookie banner', tag: 'div', ref: '@7', dismiss_ref: '@9' },
      fresh_state: observation,
    },
    [],
    ids,
  );
  for (const id of ['st_1a2b3c4d_9']) assert.is(text.split(id).length - 1, 1, text);
  for (const id of ['T1', 'S1']) assert.not.ok(text.includes(id), text);
  assert.ok(text.includes('no action completed'), text);
  assert.ok(text.includes('\nin the way: region "Cookie banner" @7; @9 dismisses it\n'), text);
});

s('an observation names each blocker on one line: the refs it covers and what dismisses it', () => {
  const covers = Array.from({ length: 32 }, (_, i) => `@${i + 3}`);
  const text = observationText({
    ...observation,
    blockers: [
      { role: 'region', name: 'Cookie banner', dismiss_ref: '@40', covers: ['@3'] },
      { role: 'dialog', name: 'Sign up', ref: '@50', covers },
    ],
  }, new IdsSaid(() => 'S1'));
  assert.ok(text.includes('\ncovered by region "Cookie banner": @3; @40 dismisses it'), text);
  assert.ok(text.endsWith(`\ncovered by dialog "Sign up" @50: ${covers.slice(0, 30).join(' ')} and 2 more`), text);
});

s('completed actions are named by position, never read as a count', () => {
  const text = actText(
    {
      status: 'completed',
      execution: 'completed',
      observation: 'captured',
      postcondition: 'not_requested',
      completed: [0],
    },
    [],
    new IdsSaid(() => undefined),
  );
  assert.ok(text.includes('completed: action #1'), text);
  assert.not.ok(text.includes('completed: 0'), text);
});

s('a conversation reads each tab and session id once, the default session never, and a frame when not the main one', () => {
  const ids = new IdsSaid(() => 'S0');
  const first = (o: Record<string, unknown>) => observationText(o, ids).split('\n')[0];
  assert.is(first(observation), 'state_id st_1a2b3c4d_9 · tab T1 · session S1');
  assert.is(first({ ...observation, state_id: 'st_2' }), 'state_id st_2');
  assert.is(first({ ...observation, state_id: 'st_3', frame_id: 'F2' }), 'state_id st_3 · frame F2');
  assert.is(first({ ...observation, state_id: 'st_4', target_id: 'T2', frame_id: 'T2' }), 'state_id st_4 · tab T2');
  // Back to the first tab: named again, since the last one said was another.
  assert.is(first({ ...observation, state_id: 'st_5' }), 'state_id st_5 · tab T1');
  // The default session is never named; moving to it names its tab.
  assert.is(first({ ...observation, state_id: 'st_6', session_id: 'S0' }), 'state_id st_6 · tab T1');
  assert.is(first({ ...observation, state_id: 'st_7', session_id: 'S1' }), 'state_id st_7 · tab T1 · session S1');
});

s('an annotated screenshot names its state and the refs not drawn, the first few of a long list', () => {
  const base = { mime: 'image/png', width: 1280, height: 720, image_content: 1 };
  assert.is(screenshotText(base, {}), '1280×720 image/png of the viewport; image px = CSS px (act x,y)');
  const all = screenshotText({ ...base, state_id: 'st_a_1', not_drawn: [] }, { annotate: true });
  assert.match(all, /\ndrawn: the refs of state st_a_1, each box labelled with its ref at its top-left$/);
  const some = screenshotText({ ...base, state_id: 'st_a_1', not_drawn: ['@3'] }, { annotate: true, refs: ['@1', '@3'] });
  assert.match(some, /drawn: 1 of the 2 refs asked of state st_a_1.*; not drawn \(gone, hidden or outside the image\): @3$/);
  const many = Array.from({ length: 45 }, (_, i) => `@${i + 1}`);
  const long = screenshotText({ ...base, state_id: 'st_a_1', not_drawn: many }, { annotate: true });
  assert.ok(long.endsWith('@20 and 25 more'), long);
});

s('an observation in markdown format shows its markdown where the tree goes', () => {
  const ids = new IdsSaid(() => 'S1');
  const text = observationText({ ...observation, tree: '', markdown: '# Ferries\n\nSee [the full timetable](@3).' }, ids);
  assert.is(text.split('\n').slice(2).join('\n'), '# Ferries\n\nSee [the full timetable](@3).');
});

s('a frame that could not be read, and an observed frame whose layout could not be, say why', () => {
  const text = observationText(
    {
      ...observation,
      frames: [
        { frame_id: 'T1', url: 'http://127.0.0.1/news', status: 'observed', reason: 'its layout could not be read within the read budget' },
        { frame_id: 'F2', url: 'http://localhost/ad', status: 'unavailable', reason: 'no answer within 1000 ms' },
        { frame_id: 'F3', url: 'http://localhost/map', status: 'observed' },
      ],
    },
    new IdsSaid(() => 'S1'),
  );
  assert.ok(text.includes('frame T1: its layout could not be read within the read budget'), text);
  assert.ok(text.includes('frame F2 unavailable: no answer within 1000 ms'), text);
  assert.not.ok(text.includes('F3'), text);
});

s.run();
