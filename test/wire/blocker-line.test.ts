// The one wording of what stands in the way (src/wire/blocker-line.ts), which MCP's page text,
// the CLI and the inspector share.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blockerLine, hitWords } from '../../src/wire/blocker-line.ts';

const s = suite('blocker line');

s('a hit is named by its role, or by its tag where the role says nothing, with the ref that dismisses it', () => {
  assert.is(
    hitWords({ role: 'dialog', name: 'Cookies', tag: 'div', ref: '@40', dismiss_ref: '@41' }),
    'dialog "Cookies" @40; @41 dismisses it',
  );
  assert.is(hitWords({ role: 'generic', name: '', tag: 'div' }), '<div>');
  assert.is(hitWords({ role: 'none', name: 'Sale', tag: 'section' }), '<section> "Sale"');
});

s('a long name is clipped only where the caller asks', () => {
  const name = 'x'.repeat(80);
  assert.is(hitWords({ role: 'region', name, tag: 'div' }), `region "${name}"`);
  assert.is(hitWords({ role: 'region', name, tag: 'div' }, 10), `region "${'x'.repeat(9)}…"`);
});

s('a blocker line names what it covers, and counts what it leaves out', () => {
  const blocker = { role: 'dialog', name: 'Sign up', ref: '@50', covers: ['@3', '@4', '@5'], dismiss_ref: '@51' };
  assert.is(blockerLine(blocker), 'covered by dialog "Sign up" @50: @3 @4 @5; @51 dismisses it');
  assert.is(blockerLine(blocker, 2), 'covered by dialog "Sign up" @50: @3 @4 and 1 more; @51 dismisses it');
});

s.run();
