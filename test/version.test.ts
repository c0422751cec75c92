import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { VERSION } from '../src/version.ts';

const s = suite('version');
s('src/version.ts matches package.json', () => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.is(VERSION, pkg.version);
});
s.run();
