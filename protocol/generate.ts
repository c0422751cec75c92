// CLI: regenerate protocol/generated/*.ts from the installed devtools-protocol JSON, and the Python
// SDK's wire types (python/pagewire/types.py) from the wire's zod schemas (protocol/python.ts).
//
//   npx tsx protocol/generate.ts            write the files (only those whose content changed)
//   npx tsx protocol/generate.ts --check    regenerate in memory, list stale files, exit 1 if any
//   deno run -R -W protocol/generate.ts [--check]
//
// Only node:fs / node:path / node:url / node:process / node:crypto are used (via load.ts), so
// the same file runs under Node (tsx) and Deno.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import { DOMAINS, KEEP_DEPRECATED } from './domains.ts';
import { emitFiles, type GeneratedFile } from './emit.ts';
import { loadProtocol } from './load.ts';
import { renderPython } from './python.ts';
import { select } from './select.ts';

/** Absolute path of protocol/generated/. */
export const OUTPUT_DIR: string = fileURLToPath(new URL('./generated/', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
/** Where the Python SDK's generated wire types go (python/pagewire/types.py). */
export const PYTHON_DIR: string = fileURLToPath(new URL('../python/pagewire/', import.meta.url));

/** The generated files as they should be, computed in memory from the installed package. */
export function renderGenerated(): GeneratedFile[] {
  const loaded = loadProtocol();
  const model = select(loaded.protocol, { domains: DOMAINS, keepDeprecated: KEEP_DEPRECATED });
  return emitFiles(model, { packageVersion: loaded.packageVersion, sha256: loaded.sha256 });
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The files in `dir` whose content differs from `files` (missing files count), as absolute paths. */
export function staleFiles(files: readonly GeneratedFile[], dir: string = OUTPUT_DIR): string[] {
  return files.map((file) => join(dir, file.name)).filter((path, i) => readOrUndefined(path) !== files[i]!.content);
}

function display(path: string): string {
  return relative(REPO_ROOT, path).split('\\').join('/');
}

function main(args: readonly string[]): number {
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    console.error(`unknown argument(s): ${unknown.join(' ')}\nusage: generate.ts [--check]`);
    return 2;
  }
  const outputs = [
    { dir: OUTPUT_DIR, files: renderGenerated() },
    { dir: PYTHON_DIR, files: [renderPython()] },
  ];
  const stale = outputs.flatMap((output) => staleFiles(output.files, output.dir));
  if (args.includes('--check')) {
    if (stale.length === 0) {
      console.log(`${outputs.map((output) => display(output.dir)).join(' and ')} are up to date`);
      return 0;
    }
    for (const path of stale) console.error(`stale: ${display(path)}`);
    console.error('run `npm run gen` (npx tsx protocol/generate.ts) and commit the result');
    return 1;
  }
  for (const output of outputs) {
    mkdirSync(output.dir, { recursive: true });
    for (const file of output.files) {
      const path = join(output.dir, file.name);
      if (!stale.includes(path)) continue;
      writeFileSync(path, file.content);
      console.log(`wrote ${display(path)}`);
    }
  }
  if (stale.length === 0) console.log('the generated files were already up to date');
  return 0;
}

function isMain(): boolean {
  const flag = (import.meta as { main?: boolean }).main;
  if (typeof flag === 'boolean') return flag;
  const script = process.argv[1];
  return script !== undefined && resolve(script) === fileURLToPath(import.meta.url);
}

if (isMain()) process.exit(main(process.argv.slice(2)));
