// `pagewire/client`: the package export the SDK is used through. It resolves from the built dist/
// as an installed package would (the browser build under `pagewire/client/browser`), and a
// TypeScript program compiles against its declarations, with the wire types of the protocol.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';

const s = suite('pagewire/client');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string>> };

s('package.json exports ./client (Node and Deno entry, declarations, browser build) and ./client/browser', () => {
  assert.equal(pkg.exports['./client'], {
    types: './dist/src/client/index.d.ts',
    browser: './dist/browser/pagewire-client.js',
    default: './dist/src/client/index.js',
  });
  assert.is(pkg.exports['./client/browser']!['default'], './dist/browser/pagewire-client.js');
  for (const path of [...Object.values(pkg.exports['./client']!), ...Object.values(pkg.exports['./client/browser']!)]) {
    assert.ok(existsSync(join(ROOT, path)), `${path} is missing: run \`npm run build\``);
  }
});

s('on Node the name resolves through the exports map to the SDK', async () => {
  if (IS_DENO) return;
  const specifier = 'pagewire/client';
  const sdk = (await import(specifier)) as { connect: unknown; RpcError: unknown; ConnectionError: unknown };
  assert.type(sdk.connect, 'function');
  assert.type(sdk.RpcError, 'function');
  assert.type(sdk.ConnectionError, 'function');
});

s('a TypeScript program compiles against the built declarations, importing by name', () => {
  if (IS_DENO) return; // the package-name resolution under test is Node's
  const dir = mkdtempSync(join(tmpdir(), 'pagewire-sdk-client-'));
  onTeardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'pagewire'), 'dir');
  symlinkSync(join(ROOT, 'node_modules', 'zod'), join(dir, 'node_modules', 'zod'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', type: 'module', private: true }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        lib: ['ES2023', 'DOM'],
        types: [],
      },
      files: ['app.ts'],
    }),
  );
  writeFileSync(
    join(dir, 'app.ts'),
    [
      "import { connect, RpcError, type ActResult, type Observation } from 'pagewire/client';",
      'export async function run(url: string): Promise<string> {',
      '  const client = await connect(url, { reconnect: { maxDelayMs: 1000 } });',
      '  const session = await client.createSession({ name: "app" });',
      '  const seen: Observation = await session.observe({ include_text: true, signal: AbortSignal.timeout(5000) });',
      "  const result: ActResult = await session.act({ action: 'click', ref: seen.elements[0]!.ref }, { state: seen, wait_for: { text: 'Done' } });",
      "  for await (const event of session.events({ kinds: ['dialog'], afterSeq: 0 })) if (event.kind === 'dialog') return event.data.message;",
      '  try { await session.tabs.close(seen.target_id); } catch (e) { if (e instanceof RpcError && e.error_type === "last_tab") return "last"; }',
      '  return result.status;',
      '}',
      '// @ts-expect-error: the status words are fixed',
      "export const wrong: ActResult['status'] = 'done';",
    ].join('\n'),
  );
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
  assert.is(tsc.status, 0, `${tsc.stdout}${tsc.stderr}`);
});

s.run();
