// One runner for Node (through tsx) and Deno: finds test/**/*.test.ts (optionally filtered by
// the substrings given as arguments), runs them as uvu suites, and ends with the plain line
// "N passed, N failed" that CI reads. Exit code 1 on any failure or when no test ran.
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { run } from 'uvu/run';
import { runTeardowns } from './helpers/teardown.ts';

const testDir = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const WATCHDOG_MS = 20 * 60_000;

function listTests(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...listTests(path));
    else if (name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

const files = listTests(testDir).filter((file) => {
  const rel = relative(testDir, file);
  return filters.length === 0 || filters.some((f) => rel.includes(f));
});

let captured = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  captured += typeof chunk === 'string' ? chunk : new TextDecoder().decode(chunk);
  return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stdout.write;

const watchdog = setTimeout(() => {
  console.error(`test run exceeded ${WATCHDOG_MS / 60_000} minutes; aborting`);
  void runTeardowns().finally(() => process.exit(1));
}, WATCHDOG_MS);

await run(files.map((file) => ({ name: relative(testDir, file), file: resolve(file) })));
await runTeardowns();
clearTimeout(watchdog);

// Strip ANSI colours before reading uvu's summary.
// deno-lint-ignore no-control-regex -- ANSI colour codes begin with ESC
const plain = captured.replace(/\x1b\[[0-9;]*m/g, '');
const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
// uvu's Total already leaves skipped tests out.
const failed = Math.max(0, total - passed);
process.stdout.write = write;
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
const exitCode = failed > 0 || passed === 0 || (process.exitCode ?? 0) !== 0 ? 1 : 0;
// Exit explicitly: a leaked handle must not keep a finished run alive (CI's clock is short).
process.exit(exitCode);
