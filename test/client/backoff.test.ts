// Reconnect delays: caps that double from the first one up to the largest, a random point below
// each cap (full jitter), and a fresh start after reset.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Backoff } from '../../src/client/backoff.ts';

const s = suite('client backoff');

s('caps double up to maxDelayMs; the delay is the cap times the random draw; reset starts over', () => {
  const draws = [0.999, 0.5, 0, 0.999, 0.999, 0.999, 0.999, 0.999];
  const backoff = new Backoff({ initialDelayMs: 100, maxDelayMs: 1000, random: () => draws.shift()! });
  assert.equal([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()], [
    99,
    100,
    0,
    799,
    999,
    999,
  ]);
  backoff.reset();
  assert.is(backoff.next(), 99);
});

s('defaults: 100 ms first cap, 5 s largest, give up after 60 s', () => {
  const backoff = new Backoff({ random: () => 0.999999 });
  const delays = Array.from({ length: 10 }, () => backoff.next());
  assert.is(delays[0], 99);
  assert.is(Math.max(...delays), 4999);
  assert.is(backoff.giveUpAfterMs, 60_000);
});

s.run();
