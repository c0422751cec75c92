import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { INSTANCE_ID, instanceOf, randomId, randomInstanceId } from '../../src/util/ids.ts';

const s = suite('ids');

s('the instance an id was handed out by is the part between its first two underscores', () => {
  assert.is(instanceOf('s_pagewire-0_0a1b2c'), 'pagewire-0');
  assert.is(instanceOf('m_eu-7_7d3c6f1e-1111-4a4a-9b9b-000000000000'), 'eu-7');
  const instance = randomInstanceId();
  assert.is(instanceOf(randomId(`s_${instance}_`)), instance);
  // Ids made before fleets, or made up, name no instance.
  assert.is(instanceOf('s_0a1b2c3d'), undefined);
  assert.is(instanceOf('s_Not_There'), undefined);
  assert.is(instanceOf('session'), undefined);
});

s('a random instance id is short and fits the pattern', () => {
  const id = randomInstanceId();
  assert.match(id, /^[0-9a-f]{8}$/);
  assert.ok(INSTANCE_ID.test(id));
});

s.run();
