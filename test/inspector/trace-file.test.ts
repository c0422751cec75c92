// Reading a trace file (src/inspector/trace-file.ts, zip.ts) as the inspector page does, here on
// the runtime's own Blob and DecompressionStream: STORED and DEFLATED entries, and each way a
// file is refused with its sentence.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readTrace, TraceError } from '../../src/inspector/trace-file.ts';
import { traceZip, zipOf } from '../helpers/trace-zip.ts';

const s = suite('inspector trace file');

const AT = Date.UTC(2026, 11, 6, 21, 0, 0);
const STEPS = [
  { seq: 1, method: 'observe', at: AT, duration_ms: 80, params: {}, result: { state_id: 's1', title: 'T', tree: 'main', elements: [] } },
  {
    seq: 2,
    method: 'act',
    at: AT + 500,
    duration_ms: 120,
    params: { state_id: 's1', action: 'click', ref: '@1' },
    acted_on: 1,
    frame_before: 'frames/1.jpg',
  },
];
const EVENTS = [{ seq: 1, step: 2, at: AT + 550, kind: 'console', data: { level: 'info', text: 'hi' } }];
const FRAME = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);

async function refusal(bytes: Uint8Array): Promise<string> {
  try {
    await readTrace('run.zip', bytes);
  } catch (error) {
    assert.instance(error, TraceError);
    return (error as Error).message;
  }
  throw new Error('the file was read');
}

for (const deflate of [false, true]) {
  s(`a trace with ${deflate ? 'DEFLATED' : 'STORED'} JSON entries is read whole`, async () => {
    const trace = await readTrace('run.zip', traceZip({ steps: STEPS, events: EVENTS, frames: { 'frames/1.jpg': FRAME }, deflate }));
    assert.is(trace.header.version, 1);
    assert.equal(trace.steps.map((step) => step.method), ['observe', 'act']);
    assert.equal(trace.events[0]?.data, { level: 'info', text: 'hi' });
    assert.is(await trace.frame('frames/1.jpg'), `data:image/jpeg;base64,${btoa(String.fromCharCode(...FRAME))}`);
    assert.is(await trace.frame('frames/9.jpg'), undefined);
  });
}

s('another version, another format, or a missing entry: one sentence naming what is wrong', async () => {
  assert.is(
    await refusal(traceZip({ steps: STEPS, header: { version: 2, pagewire: '9.0.0' } })),
    '"run.zip" is a pagewire trace of version 2 (written by pagewire 9.0.0); this inspector reads version 1 only.',
  );
  assert.is(
    await refusal(traceZip({ steps: STEPS, header: { format: 'playwright-trace' } })),
    '"run.zip" is not a pagewire trace: its format is "playwright-trace", not "pagewire-trace".',
  );
  assert.is(
    await refusal(traceZip({ steps: STEPS, without: ['steps.jsonl'] })),
    '"run.zip" is not a pagewire trace: it has no steps.jsonl.',
  );
  assert.is(
    await refusal(
      zipOf([{ name: 'trace.json', data: '{"format":"pagewire-trace",' }, { name: 'steps.jsonl', data: '' }, {
        name: 'events.jsonl',
        data: '',
      }]),
    ),
    '"run.zip" is damaged: its trace.json is not JSON.',
  );
  assert.is(
    await refusal(traceZip({ steps: [...STEPS, { seq: 3 }] as never })),
    '"run.zip" is damaged: line 3 of steps.jsonl is not a step.',
  );
});

s('bytes that are not a ZIP, a file cut short, and a damaged entry are refused', async () => {
  const good = traceZip({ steps: STEPS, events: EVENTS, frames: { 'frames/1.jpg': FRAME }, deflate: true });
  assert.match(
    await refusal(new TextEncoder().encode('<html>not found</html>')),
    /^"run\.zip" cannot be opened: The file is not a ZIP archive/,
  );
  assert.match(await refusal(good.subarray(0, good.length - 30)), /^"run\.zip" cannot be opened: /);
  // One byte of the deflated header changed: it no longer inflates, or no longer matches its checksum.
  const damaged = good.slice();
  damaged[40] = damaged[40]! ^ 0xff;
  assert.match(await refusal(damaged), /^"run\.zip" cannot be opened: trace\.json is damaged/);
  // A damaged frame leaves the trace readable: that frame alone is missing.
  const frameAt = indexOf(good, FRAME);
  const badFrame = good.slice();
  badFrame[frameAt + 4] = 0;
  const trace = await readTrace('run.zip', badFrame);
  assert.is(await trace.frame('frames/1.jpg'), undefined);
});

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  throw new Error('not found');
}

s.run();
