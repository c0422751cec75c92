// The line diff of two trees (src/inspector/line-diff.ts) and the hunks the trace view shows.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diffHunks, lineDiff } from '../../src/inspector/line-diff.ts';
import { lineNames } from '../../src/inspector/trace-steps.ts';

const s = suite('inspector line diff');

s('lines kept, removed and added, in order', () => {
  const before = 'main\n button "Save" @1\n region "Cookie banner" @2\n  button "Accept all" @3';
  const after = 'main\n button "Save" @1\n status "Saved"';
  assert.equal(lineDiff(before, after), [
    { op: 'same', line: 'main' },
    { op: 'same', line: ' button "Save" @1' },
    { op: 'removed', line: ' region "Cookie banner" @2' },
    { op: 'removed', line: '  button "Accept all" @3' },
    { op: 'added', line: ' status "Saved"' },
  ]);
  assert.equal(lineDiff('a\nb\nc', 'a\nx\nc'), [
    { op: 'same', line: 'a' },
    { op: 'removed', line: 'b' },
    { op: 'added', line: 'x' },
    { op: 'same', line: 'c' },
  ]);
});

s('hunks keep a little context and count the rest', () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
  const after = before.replace('line 10', 'line ten');
  const hunks = diffHunks(lineDiff(before, after), 1);
  assert.equal(hunks, [
    { skipped: 9 },
    { op: 'same', line: 'line 9' },
    { op: 'removed', line: 'line 10' },
    { op: 'added', line: 'line ten' },
    { op: 'same', line: 'line 11' },
    { skipped: 8 },
  ]);
});

s('a ref is found on its line, not inside a quoted name', () => {
  assert.ok(lineNames(' button "Delete account" @12', ['@12']));
  assert.ok(lineNames('button "A" @11 "B" @12', ['@12']));
  assert.not.ok(lineNames(' button "Delete @12" @4', ['@12']));
  assert.not.ok(lineNames(' button "Go" @120', ['@12']));
});

s.run();
