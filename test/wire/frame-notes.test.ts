// The one wording of a frame an observation could not read (src/wire/frame-notes.ts), which the
// CLI and the inspector both show.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { frameNotes } from '../../src/wire/frame-notes.ts';

const s = suite('frame notes');

s('frame notes: a frame not read says why, one observed without its layout too; a frame read whole says nothing', () => {
  const notes = frameNotes([
    { url: 'http://127.0.0.1/app', status: 'observed', reason: 'its layout could not be read in time; observe again' },
    { url: 'http://localhost/ad', status: 'unavailable', reason: 'the frame did not answer' },
    { url: 'http://127.0.0.1/child', status: 'observed' },
  ]);
  assert.equal(notes, [
    { status: 'observed', text: 'frame http://127.0.0.1/app: its layout could not be read in time; observe again' },
    { status: 'unavailable', text: 'frame unavailable: http://localhost/ad (the frame did not answer)' },
  ]);
});

s.run();
