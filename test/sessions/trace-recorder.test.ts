// The trace recorder (src/sessions/trace-recorder.ts) without a browser: steps numbered as they
// begin and written as they end, acted_on from the state ids answered, events placed in the step
// that ran, the frame cap (oldest dropped and counted, never a step), and the entries in order.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EventLog } from '../../src/events/event-log.ts';
import { type TraceEntry, TraceRecorder, type TraceSpill } from '../../src/sessions/trace-recorder.ts';

const s = suite('trace recorder');

class MemorySpill implements TraceSpill {
  readonly files = new Map<string, Uint8Array>();
  disposed = false;
  write(name: string, bytes: Uint8Array): Promise<void> {
    this.files.set(name, bytes);
    return Promise.resolve();
  }
  read(name: string): Promise<Uint8Array> {
    const bytes = this.files.get(name);
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Error(`no ${name}`));
  }
  remove(name: string): Promise<void> {
    this.files.delete(name);
    return Promise.resolve();
  }
  dispose(): Promise<void> {
    this.disposed = true;
    this.files.clear();
    return Promise.resolve();
  }
}

function recorder(maxFrames = 3) {
  const events = new EventLog({ sessionId: 's_test' });
  const spill = new MemorySpill();
  let now = 1_000;
  const trace = new TraceRecorder({
    sessionId: 's_test',
    events,
    spill,
    maxFrames,
    viewport: { width: 1280, height: 720 },
    scrubber: () => (text) => text.replaceAll('hunter2', '[redacted]'),
    now: () => (now += 10),
  });
  return { trace, events, spill };
}

async function read(trace: TraceRecorder) {
  const entries: TraceEntry[] = [];
  for await (const entry of trace.entries({ pagewire: '0.0.0', protocol: '1' })) entries.push(entry);
  const text = (name: string) => new TextDecoder().decode(entries.find((e) => e.name === name)!.data);
  const lines = (name: string) => text(name).split('\n').filter(Boolean).map((line) => JSON.parse(line));
  return {
    names: entries.map((e) => e.name),
    header: JSON.parse(text('trace.json')),
    steps: lines('steps.jsonl'),
    events: lines('events.jsonl'),
  };
}

s('nothing is recorded before start; steps carry acted_on, the scrubbed params, and the events that came during them', async () => {
  const { trace, events } = recorder();
  assert.is(trace.begin(), undefined);
  trace.start();
  const observe = trace.begin()!;
  trace.finish(observe, 'observe', { params: {}, result: { state_id: 'st_1', tree: 'textbox "Password"' }, tabId: 't1' });
  const act = trace.begin()!;
  events.publish({ kind: 'console', target_id: 't1', data: { level: 'log', text: 'typed' } });
  events.publish({ kind: 'act', data: {} as never });
  trace.finish(act, 'act', { params: { state_id: 'st_1', action: 'fill', text: 'hunter2' }, result: { status: 'completed' } });
  trace.stop();
  assert.is(trace.begin(), undefined, 'stopped');
  const { header, steps, events: recorded } = await read(trace);
  assert.equal(steps.map((step) => [step.seq, step.method, step.acted_on]), [[1, 'observe', undefined], [2, 'act', 1]]);
  assert.is(steps[1].params.text, '[redacted]');
  assert.is(steps[0].tab_id, 't1');
  assert.equal(recorded.map((event) => [event.seq, event.step, event.kind]), [[1, 2, 'console']], 'an act event is no event of a trace');
  assert.is(header.format, 'pagewire-trace');
  assert.is(header.version, 1);
  assert.is(header.steps, 2);
  assert.is(header.events, 1);
  assert.equal(header.viewport, { width: 1280, height: 720 });
});

s('the frame cap: the oldest frames are dropped and counted, steps keep only the frames kept', async () => {
  const { trace, spill } = recorder(2);
  trace.start();
  for (let i = 0; i < 3; i++) {
    const step = trace.begin()!;
    const before = await trace.keepFrame(new Uint8Array([0xff, 0xd8, i]));
    const after = await trace.keepFrame(new Uint8Array([0xff, 0xd8, 10 + i]));
    trace.finish(step, 'act', { params: {}, frameBefore: before, frameAfter: after, frameScale: 0.625 });
  }
  assert.is(trace.frames, 2);
  assert.is(trace.droppedFrames, 4);
  assert.equal([...spill.files.keys()], ['frames/5.jpg', 'frames/6.jpg'], 'the spill holds only what is kept');
  const { names, header, steps } = await read(trace);
  assert.equal(names, ['trace.json', 'steps.jsonl', 'events.jsonl', 'frames/5.jpg', 'frames/6.jpg']);
  assert.is(header.dropped_frames, 4);
  assert.is(steps.length, 3, 'every step kept');
  assert.equal(steps.map((step) => [step.frame_before, step.frame_after]), [[undefined, undefined], [undefined, undefined], [
    'frames/5.jpg',
    'frames/6.jpg',
  ]]);
  await trace.dispose();
  assert.ok(spill.disposed);
});

s.run();
