// The layering of src/ (docs/architecture.md): each folder imports only the layers to its left,
// node:*, ws and Deno stay in the runtime adapters and the process entry, and the protocol
// module (src/wire) imports nothing of the server.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const root = fileURLToPath(new URL('../', import.meta.url));

/**
 * layer → the layers it may import (itself always allowed). `wire` is the protocol's schemas
 * and types: it imports only zod, and every layer that speaks the wire's words may import it
 * (clients import it as `pagewire/protocol`).
 */
const ALLOWED: Record<string, string[]> = {
  'protocol/generated': [],
  'wire': [],
  util: [],
  errors: ['util', 'wire'],
  events: ['util', 'errors', 'wire'],
  version: [],
  cdp: ['protocol/generated', 'util', 'errors'],
  // The in-page module (it runs in the page, not in the server): DOM only, nothing of the server;
  // the browser layer installs it and is the only one that imports it.
  page: [],
  browser: ['protocol/generated', 'cdp', 'util', 'errors', 'wire', 'page'],
  observe: ['protocol/generated', 'browser', 'cdp', 'util', 'errors', 'wire'],
  // Pixels beside the reader (screenshots, screencast, masks): built on the browser layer's
  // worlds and geometry, sharing nothing with observe, so neither imports the other.
  capture: ['protocol/generated', 'browser', 'cdp', 'util', 'errors', 'wire'],
  // act attaches a screenshot to its result (the type only; rpc takes it).
  actions: ['protocol/generated', 'observe', 'capture', 'browser', 'cdp', 'util', 'errors', 'wire'],
  sessions: ['protocol/generated', 'events', 'observe', 'browser', 'cdp', 'util', 'errors', 'wire'],
  rpc: ['protocol/generated', 'wire', 'events', 'sessions', 'actions', 'observe', 'capture', 'browser', 'cdp', 'util', 'errors', 'version'],
  // rpc ← mcp ← server: the MCP tools map onto the method table and nothing below it.
  mcp: ['rpc', 'wire', 'util', 'errors', 'version'],
  runtime: ['protocol/generated', 'cdp', 'rpc', 'wire', 'actions', 'util', 'errors'],
  // The flags' domain patterns are checked by the sessions' own parser (sessions/domain-policy.ts).
  config: ['util', 'sessions'],
  server: ['*'],
  // The SDK and the CLI on it never reach into the server (ARCHITECTURE.md D1).
  client: ['util', 'errors', 'wire'],
  cli: ['client', 'util', 'errors', 'wire'],
  // The /inspector page's app: a client of the wire like any other (it gets the SDK at run time).
  inspector: ['client', 'util', 'errors', 'wire'],
  serve: ['*'],
  main: ['*'],
};

/** Packages (and node: builtins) a layer may import. */
const PACKAGES: Record<string, RegExp> = {
  'wire': /^zod$/,
  util: /^picomatch$/,
  rpc: /^(zod|json-rpc-2\.0)$/,
  mcp: /^(zod|@modelcontextprotocol\/server)$/,
  config: /^zod$/,
  // The MCP transports (stdio, the /mcp route) are the SDK's, mounted here.
  runtime: /^(node:.*|ws|@modelcontextprotocol\/server(\/stdio)?)$/,
  // Imported lazily, and only where the runtime has no WebSocket of its own (Node 20).
  client: /^(ws|node:module)$/,
  cli: /^node:.*$/,
  serve: /^node:process$/,
  main: /^node:process$/,
};

function layerOf(file: string): string | undefined {
  const rel = relative(root, file).replaceAll('\\', '/');
  if (rel.startsWith('protocol/generated/')) return 'protocol/generated';
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

s('only the installer (src/browser/page-module.ts) imports the in-page module', () => {
  const importers = new Set<string>();
  for (const file of sources(join(root, 'src'))) {
    if (layerOf(file) === 'page') continue;
    for (const spec of imports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.') && layerOf(resolve(dirname(file), spec)) === 'page') importers.add(relative(root, file));
    }
  }
  assert.equal([...importers], ['src/browser/page-module.ts']);
});

s('the in-page module imports no package and names nothing of Node or Deno', () => {
  const violations: string[] = [];
  for (const file of sources(join(root, 'src/page'))) {
    const text = withoutComments(readFileSync(file, 'utf8'));
    for (const spec of imports(text)) if (!spec.startsWith('.')) violations.push(`${relative(root, file)} → ${spec}`);
    if (/\b(process|Buffer|Deno|require)\b/.test(text)) violations.push(`${relative(root, file)} names a server runtime global`);
  }
  assert.equal(violations, []);
});

s(
  'the SDK takes only types from the wire schemas (values only from modules that import nothing), and imports ws only lazily (the browser build has no import at all)',
  () => {
    const violations: string[] = [];
    for (const file of sources(join(root, 'src/client'))) {
      const text = withoutComments(readFileSync(file, 'utf8'));
      for (const match of text.matchAll(/^\s*import\s+(type\s+)?[^;'"]*?from\s+['"]([^'"]+)['"]/gm)) {
        const to = match[2]!.startsWith('.') ? layerOf(resolve(dirname(file), match[2]!)) : match[2];
        // A wire module with no import at all (the navigations' set) carries no zod.
        const zodFree = to === 'wire' && imports(readFileSync(resolve(dirname(file), match[2]!), 'utf8')).length === 0;
        if (to === 'wire' && !match[1] && !zodFree) {
          violations.push(`${relative(root, file)}: import type from ${match[2]} (the browser build must not carry zod)`);
        }
        if (to === 'ws' || to?.startsWith('node:')) {
          violations.push(`${relative(root, file)}: a static import of ${to} (load it lazily, only without a global WebSocket)`);
        }
      }
    }
    assert.equal(violations, []);
  },
);

s('Deno.* is used nowhere in src/ (one runtime path: node:http + ws work on both)', () => {
  const users = sources(join(root, 'src')).filter((file) => /\bDeno\.[A-Za-z]/.test(withoutComments(readFileSync(file, 'utf8'))));
  assert.equal(users.map((f) => relative(root, f)), []);
});

s.run();
