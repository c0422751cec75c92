import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BoundedMap } from '../../src/util/bounded-map.ts';

const s = suite('bounded-map');

s('set keeps at most the limit, dropping the oldest; an existing key keeps its place', () => {
  const map = new BoundedMap<string, number>(2);
  map.set('a', 1).set('b', 2).set('a', 3);
  assert.equal([...map], [['a', 3], ['b', 2]]);
  map.set('c', 4);
  assert.equal([...map], [['b', 2], ['c', 4]]);
});

s('renew moves the key to the newest end and returns what was dropped', () => {
  const map = new BoundedMap<string, number>(2);
  assert.equal(map.renew('a', 1), []);
  assert.equal(map.renew('b', 2), []);
  assert.equal(map.renew('a', 3), []);
  assert.equal([...map.keys()], ['b', 'a']);
  assert.equal(map.renew('c', 4), [2]);
  assert.equal([...map], [['a', 3], ['c', 4]]);
});

s.run();
