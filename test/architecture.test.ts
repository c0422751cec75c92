// The layering of src/ (docs/architecture.md): each folder imports only the layers to its left,
// and node:*, ws and Deno stay in the runtime adapters and the process entry.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../', import.meta.url));

/** layer → the layers it may import (itself always allowed). */
const ALLOWED: Record<string, string[]> = {
  'protocol/generated': [],
  util: [],
  errors: ['util'],
  events: ['util', 'errors'],
  version: [],
  cdp: ['protocol/generated', 'util', 'errors'],
  browser: ['protocol/generated', 'cdp', 'util', 'errors'],
  observe: ['protocol/generated', 'browser', 'cdp', 'util', 'errors'],
  actions: ['protocol/generated', 'observe', 'browser', 'cdp', 'util', 'errors'],
  sessions: ['protocol/generated', 'events', 'observe', 'browser', 'cdp', 'util', 'errors'],
  rpc: ['protocol/generated', 'events', 'sessions', 'actions', 'observe', 'browser', 'cdp', 'util', 'errors', 'version'],
  runtime: ['protocol/generated', 'cdp', 'rpc', 'actions', 'util', 'errors'],
  config: ['util'],
  server: ['*'],
  // The SDK and the CLI on it never reach into the server (ARCHITECTURE.md D1).
  'rpc/wire': ['util', 'errors'],
  client: ['util', 'errors', 'rpc/wire'],
  cli: ['client', 'util', 'errors', 'rpc/wire'],
  serve: ['*'],
  main: ['*'],
};

/** Packages (and node: builtins) a layer may import. */
const PACKAGES: Record<string, RegExp> = {
  util: /^picomatch$/,
  rpc: /^(zod|json-rpc-2\.0)$/,
  config: /^zod$/,
  runtime: /^(node:.*|ws)$/,
  'rpc/wire': /^zod$/,
  // Imported lazily, and only where the runtime has no WebSocket of its own (Node 20).
  client: /^ws$/,
  cli: /^node:.*$/,
  serve: /^node:process$/,
  main: /^node:(process|fs|url)$/,
};

function layerOf(file: string): string | undefined {
  const rel = relative(root, file).replaceAll('\\', '/');
  if (rel.startsWith('protocol/generated/')) return 'protocol/generated';
  if (rel.startsWith('src/rpc/wire/') || rel === 'src/rpc/wire.ts') return 'rpc/wire';
  const match = /^src\/([^/]+?)(\.ts)?(\/|$)/.exec(rel);
  return match?.[1];
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

function imports(text: string): string[] {
  const found: string[] = [];
  const pattern = /^\s*(?:import|export)\s[^;'"]*?from\s+['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const match of withoutComments(text).matchAll(pattern)) found.push(match[1] ?? match[2]!);
  return found;
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

const s = suite('architecture');

s('every import in src/ and protocol/generated follows the layer table', () => {
  const violations: string[] = [];
  for (const file of [...sources(join(root, 'src')), ...sources(join(root, 'protocol/generated'))]) {
    const from = layerOf(file)!;
    assert.ok(from in ALLOWED, `${relative(root, file)} is in no known layer (${from})`);
    const allowed = ALLOWED[from]!;
    for (const spec of imports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        const to = layerOf(resolve(dirname(file), spec));
        if (to === undefined || to === from || allowed.includes('*') || allowed.includes(to)) continue;
        violations.push(`${relative(root, file)} → ${spec} (${from} may not import ${to})`);
      } else if (!(PACKAGES[from]?.test(spec) ?? false) && !allowed.includes('*')) {
        violations.push(`${relative(root, file)} → ${spec} (${from} may not import packages like this)`);
      }
    }
  }
  assert.equal(violations, []);
});

s('the SDK takes only types from the wire schemas, and imports ws only lazily (the browser build has no import at all)', () => {
  const violations: string[] = [];
  for (const file of sources(join(root, 'src/client'))) {
    const text = withoutComments(readFileSync(file, 'utf8'));
    for (const match of text.matchAll(/^\s*import\s+(type\s+)?[^;'"]*?from\s+['"]([^'"]+)['"]/gm)) {
      const to = match[2]!.startsWith('.') ? layerOf(resolve(dirname(file), match[2]!)) : match[2];
      if (to === 'rpc/wire' && !match[1]) violations.push(`${relative(root, file)}: import type from ${match[2]} (the browser build must not carry zod)`);
      if (to === 'ws') violations.push(`${relative(root, file)}: a static import of ws (import it lazily, only without a global WebSocket)`);
    }
  }
  assert.equal(violations, []);
});

s('Deno.* is used nowhere in src/ (one runtime path: node:http + ws work on both)', () => {
  const users = sources(join(root, 'src')).filter((file) => /\bDeno\.[A-Za-z]/.test(withoutComments(readFileSync(file, 'utf8'))));
  assert.equal(users.map((f) => relative(root, f)), []);
});

s.run();
