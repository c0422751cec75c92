// The pure parts of an annotated screenshot: page boxes mapped to image px (device pixel ratio,
// clip, scale), cut to the image or not drawn, the marks' sizes, and a readable ink.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { inkFor, MARK_PALETTE, markColour, markStyle, placeMarks } from '../../src/capture/annotate.ts';

const s = suite('capture/annotate');

const boxes = new Map([
  ['@1', { x: 10.4, y: 20.6, width: 100, height: 30 }],
  ['@2', { x: 1250, y: 700, width: 100, height: 50 }],
  ['@3', { x: 10, y: 2000, width: 50, height: 20 }],
]);

s('placeMarks: whole image px, in the order asked; cut at the edge; outside or unknown: not drawn', () => {
  const viewport = { x: 0, y: 0, width: 1280, height: 720 };
  const placed = placeMarks(['@3', '@1', '@2', '@9'], boxes, viewport, { width: 1280, height: 720 });
  assert.equal(placed.notDrawn, ['@3', '@9']);
  assert.equal(placed.marks.map((m) => m.label), ['@1', '@2']);
  assert.equal(placed.marks[0], {
    label: '@1',
    x: 10,
    y: 20,
    width: 101,
    height: 31,
    colour: markColour('@1'),
    ink: inkFor(markColour('@1')),
  });
  assert.equal({ ...placed.marks[1], colour: '', ink: '' }, { label: '@2', x: 1250, y: 700, width: 30, height: 20, colour: '', ink: '' });
});

s('placeMarks: a scrolled viewport or a clip is subtracted, a device pixel ratio or a scale multiplies', () => {
  // The viewport scrolled to y 1990 (page coordinates), at device pixel ratio 2.
  const scrolled = placeMarks(['@3'], boxes, { x: 0, y: 1990, width: 1280, height: 720 }, { width: 2560, height: 1440 });
  assert.equal({ ...scrolled.marks[0], colour: '', ink: '' }, { label: '@3', x: 20, y: 20, width: 100, height: 40, colour: '', ink: '' });
  assert.equal(scrolled.style, { line: 4, font: 24, pad: 4 });
  // Scaled down to a quarter: marks shrink, but no label below a readable size.
  const small = placeMarks(['@1'], boxes, { x: 0, y: 0, width: 1280, height: 720 }, { width: 320, height: 180 });
  assert.equal({ ...small.marks[0], colour: '', ink: '' }, { label: '@1', x: 2, y: 5, width: 26, height: 8, colour: '', ink: '' });
  assert.equal(small.style, markStyle(0.25));
  assert.ok(small.style.font >= 10);
});

s('colours: by ref number, each with the ink that contrasts more', () => {
  assert.is(markColour('@1'), MARK_PALETTE[1]);
  assert.is(markColour(`@${MARK_PALETTE.length + 1}`), MARK_PALETTE[1]);
  assert.is(inkFor('#000075'), '#ffffff');
  assert.is(inkFor('#ffff00'), '#000000');
  for (const colour of MARK_PALETTE) assert.match(inkFor(colour), /^#(000000|ffffff)$/);
});

s.run();
