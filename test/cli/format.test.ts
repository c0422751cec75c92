// The CLI's page text (src/cli/format.ts): what could not be read of a frame is said beside the tree.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pageText } from '../../src/cli/format.ts';
import type { Observation } from '../../src/client/wire.ts';

const s = suite('cli format');

s('a frame that could not be read, and an observed frame whose layout could not be, say why', () => {
  const observation = {
    state_id: 'st_1a2b3c4d_9',
    session_id: 'S1',
    target_id: 'T1',
    frame_id: 'T1',
    title: 'Ferry timetable',
    url: 'http://127.0.0.1/news',
    tree: 'link "See the full timetable" @3',
    elements: [],
    truncated: false,
    frames: [
      { frame_id: 'T1', url: 'http://127.0.0.1/news', status: 'observed', reason: 'its layout could not be read within the read budget' },
      { frame_id: 'F2', url: 'http://localhost/ad', status: 'unavailable', reason: 'no answer within 1000 ms' },
      { frame_id: 'F3', url: 'http://localhost/map', status: 'observed' },
    ],
  } as unknown as Observation;
  const text = pageText(observation);
  assert.ok(text.includes('frame http://127.0.0.1/news: its layout could not be read within the read budget'), text);
  assert.ok(text.includes('frame unavailable: http://localhost/ad (no answer within 1000 ms)'), text);
  assert.not.ok(text.includes('localhost/map'), text);
});

s.run();
