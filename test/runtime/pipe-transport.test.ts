// The pipe transport's framing against in-memory streams: NUL-separated messages both ways, the
// messages of one task written together in one write, messages split across chunks, and nothing
// written once closed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough, Writable } from 'node:stream';
import { PipeTransport } from '../../src/runtime/pipe-transport.ts';

/** A writable that records each write it is given. */
function recorder(): { stream: Writable; writes: string[] } {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, writes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

const s = suite('PipeTransport');

s('the messages of one task go out in one write, each ended by a NUL, in order', async () => {
  const out = recorder();
  const transport = new PipeTransport(out.stream, new PassThrough());
  transport.send('{"id":1}');
  transport.send('{"id":2}');
  transport.send('{"id":3}');
  assert.equal(out.writes, [], 'nothing is written before the task yields');
  await tick();
  assert.equal(out.writes, ['{"id":1}\0{"id":2}\0{"id":3}\0']);
  transport.send('{"id":4}');
  await tick();
  assert.equal(out.writes, ['{"id":1}\0{"id":2}\0{"id":3}\0', '{"id":4}\0'], 'a later task writes again');
});

s('incoming messages are split at NULs, also across chunks and in multi-byte text', async () => {
  const input = new PassThrough();
  const transport = new PipeTransport(recorder().stream, input);
  const received: string[] = [];
  transport.onmessage = (message) => received.push(message);
  const text = Buffer.from('{"a":"é"}\0{"b":2}\0{"c":', 'utf8');
  // Cut inside the two-byte "é" to prove chunks are joined as bytes, not as strings.
  const cut = text.indexOf(0xc3) + 1;
  input.write(text.subarray(0, cut));
  input.write(text.subarray(cut));
  input.write(Buffer.from('3}\0', 'utf8'));
  await tick();
  assert.equal(received, ['{"a":"é"}', '{"b":2}', '{"c":3}']);
});

s('after close, send throws and messages queued before it are not written', async () => {
  const out = recorder();
  const input = new PassThrough();
  const transport = new PipeTransport(out.stream, input);
  let reason = '';
  transport.onclose = (why) => (reason = why);
  transport.send('{"id":1}');
  transport.close();
  await tick();
  assert.equal(out.writes, []);
  assert.throws(() => transport.send('{"id":2}'), /pipe closed/);
  assert.is(reason, 'closed by pagewire');
});

s.run();
