// `pagewire/protocol`: the package export clients take the wire's schemas and types from. It
// resolves from the built dist/ as an installed package would, declares the client types, and
// holds the protocol only (zod and its own files, nothing of the server).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { METHODS } from '../../src/wire/index.ts';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';

const s = suite('pagewire/protocol');

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, { types: string; default: string }>;
};
const entry = pkg.exports['./protocol']!;
const built = (path: string) => join(ROOT, path);

s('package.json exports ./protocol with its declarations; the bin is untouched', () => {
  assert.is(entry.default, './dist/src/wire/index.js');
  assert.is(entry.types, './dist/src/wire/index.d.ts');
  assert.is(pkg.bin['pagewire'], 'dist/src/main.js');
  for (const path of [entry.default, entry.types, pkg.bin['pagewire']!]) {
    assert.ok(existsSync(built(path)), `${path} is missing: run \`npm run build\``);
  }
});

s('the built module is the wire table', async () => {
  const built_ = (await import(pathToFileURL(built(entry.default)).href)) as { METHODS: Record<string, { name: string }> };
  assert.equal(Object.keys(built_.METHODS), Object.keys(METHODS));
  for (const [name, method] of Object.entries(built_.METHODS)) assert.is(method.name, name);
});

s('on Node the name resolves through the exports map', async () => {
  if (IS_DENO) return;
  // A variable, so that the type checker does not need dist/ to exist.
  const specifier = 'pagewire/protocol';
  const byName = (await import(specifier)) as { METHODS: object };
  assert.equal(Object.keys(byName.METHODS), Object.keys(METHODS));
});

s('the built module imports zod and its own files only', () => {
  const dir = built('dist/src/wire');
  const foreign: string[] = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.js') || name.endsWith('.d.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const match of text.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) {
      const specifier = match[1] ?? match[2]!;
      if (specifier !== 'zod' && !/^\.\/[a-z-]+\.(js|ts)$/.test(specifier)) foreign.push(`${file}: ${specifier}`);
    }
  }
  assert.equal(foreign, []);
});

s('a TypeScript client compiles against the built declarations, importing by name', () => {
  if (IS_DENO) return; // the package-name resolution under test is Node's
  const dir = mkdtempSync(join(tmpdir(), 'pagewire-protocol-client-'));
  onTeardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'pagewire'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'client', type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: [] },
      files: ['client.ts'],
    }),
  );
  writeFileSync(
    join(dir, 'client.ts'),
    [
      "import type { ActResult, Action, Element, EventOf, Methods, Observation } from 'pagewire/protocol';",
      "import { observation } from 'pagewire/protocol';",
      'export const parse = (value: unknown): Observation => observation.parse(value);',
      'export const first = (o: Observation): Element | undefined => o.elements[0];',
      'export const fresh = (r: ActResult): string | undefined => r.fresh_state?.state_id;',
      "export const click: Action = { action: 'click', ref: '@1' };",
      "export const tabs: Methods['tabs.list']['result'] = { tabs: [] };",
      "export const kind: EventOf<'dialog'>['data']['type'] = 'alert';",
      // A wrong shape must fail, or the check above would prove nothing.
      '// @ts-expect-error: the status words are fixed',
      "export const wrong: ActResult['status'] = 'done';",
    ].join('\n'),
  );
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
  assert.is(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`);
});

s.run();
