// `npm run docs`: writes the README's generated tables between their markers — the methods (from
// rpc.discover, itself generated from the schemas that validate params), the errors (src/errors.ts)
// and the flags (src/config.ts). `npm run docs -- --check` writes nothing and exits 1 when a table
// in README.md is not what the code says; test/docs/readme.test.ts runs the same check in npm test.
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { envName, FLAGS, parseConfig } from '../src/config.ts';
import { ERROR_CODES, ERROR_MEANINGS, type ErrorType } from '../src/errors.ts';
import type { OpenRpcDocument, OpenRpcMethod } from '../src/rpc/discover.ts';
import { startServer } from '../src/server.ts';
import { TestClient } from '../test/helpers/client.ts';

export const README = fileURLToPath(new URL('../README.md', import.meta.url));

interface Column<Row> {
  title: string;
  cell(row: Row): string;
}

function table<Row>(columns: Column<Row>[], rows: Row[]): string {
  // A `|` inside a cell (`error | warn`) would end it.
  const line = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(columns.map((c) => c.title)), line(columns.map(() => '---')), ...rows.map((row) => line(columns.map((c) => c.cell(row))))]
    .join('\n');
}

const code = (text: string) => `\`${text}\``;

/** Optional params end in `?`. */
function paramNames(method: OpenRpcMethod): string {
  return method.params.map((p) => code(p.required ? p.name : `${p.name}?`)).join(', ') || '—';
}

type JsonSchema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};

/** A result schema in a few characters: a named shape, `{field, optional?}`, or the alternatives. */
function shapeOf(schema: JsonSchema): string {
  if (schema.$ref) return schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1);
  if (schema.anyOf) return schema.anyOf.map(shapeOf).join(' or ');
  if (schema.type === 'array' && schema.items) return `[${shapeOf(schema.items)}]`;
  if (!schema.properties) return schema.type ?? 'any';
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties).map(([name, field]) => {
    const inner = field.$ref || field.type === 'array' ? `: ${shapeOf(field)}` : '';
    return `${name}${required.has(name) ? '' : '?'}${inner}`;
  });
  return `{${fields.join(', ')}}`;
}

// One column per fact.
const METHOD_COLUMNS: Column<OpenRpcMethod>[] = [
  { title: 'method', cell: (m) => code(m.name) },
  { title: 'params', cell: paramNames },
  { title: 'result', cell: (m) => code(shapeOf(m.result.schema as JsonSchema)) },
  { title: 'what it does', cell: (m) => m.summary },
];

const ERROR_COLUMNS: Column<ErrorType>[] = [
  { title: 'code', cell: (type) => String(ERROR_CODES[type]) },
  { title: '`error_type`', cell: code },
  { title: 'when', cell: (type) => ERROR_MEANINGS[type] },
];

type Flag = [name: string, spec: (typeof FLAGS)[keyof typeof FLAGS]];

const FLAG_COLUMNS: Column<Flag>[] = [
  { title: 'flag', cell: ([name, spec]) => code(`--${name}${'arg' in spec ? ` ${spec.arg}` : ''}`) },
  // --help is read from the command line only.
  { title: 'variable', cell: ([name]) => (name === 'help' ? '—' : code(envName(name))) },
  { title: 'meaning', cell: ([, spec]) => spec.help },
];

/** What rpc.discover says on a server with every method enabled (no browser is launched). */
async function discover(): Promise<OpenRpcDocument> {
  const server = await startServer(parseConfig(['--port', '0', '--no-auth', '--allow-raw-cdp'], {}), { runtime: 'docs' });
  try {
    const client = await TestClient.connect(server.url);
    try {
      return await client.call<OpenRpcDocument>('rpc.discover');
    } finally {
      client.close();
    }
  } finally {
    await server.close();
  }
}

/** Every generated block by name: its text goes between `<!-- docs:NAME:start -->` and `…:end -->`. */
export async function generatedBlocks(): Promise<Record<string, string>> {
  const doc = await discover();
  return {
    methods: table(METHOD_COLUMNS, doc.methods),
    errors: table(ERROR_COLUMNS, Object.keys(ERROR_CODES) as ErrorType[]),
    flags: table(FLAG_COLUMNS, Object.entries(FLAGS) as Flag[]),
  };
}

const markers = (name: string) => [`<!-- docs:${name}:start -->`, `<!-- docs:${name}:end -->`] as const;

/** `text` with each block's markers holding its generated text; throws when a block has no markers. */
export function withBlocks(text: string, blocks: Record<string, string>): string {
  let out = text;
  for (const [name, body] of Object.entries(blocks)) {
    const [start, end] = markers(name);
    const from = out.indexOf(start);
    const to = out.indexOf(end);
    if (from === -1 || to < from) throw new Error(`README.md has no ${start} … ${end} markers`);
    out = `${out.slice(0, from + start.length)}\n${body}\n${out.slice(to)}`;
  }
  return out;
}

/** The names of the blocks whose text in `text` is not the generated one. */
export function staleBlocks(text: string, blocks: Record<string, string>): string[] {
  return Object.keys(blocks).filter((name) => withBlocks(text, { [name]: blocks[name]! }) !== text);
}

async function main(): Promise<number> {
  const check = process.argv.includes('--check');
  const text = readFileSync(README, 'utf8');
  const blocks = await generatedBlocks();
  if (check) {
    const stale = staleBlocks(text, blocks);
    if (stale.length === 0) return 0;
    console.error(`README.md: the ${stale.join(', ')} table(s) are not what the code says; run \`npm run docs\``);
    return 1;
  }
  const next = withBlocks(text, blocks);
  if (next !== text) writeFileSync(README, next);
  console.log(next === text ? 'README.md: tables up to date' : 'README.md: tables written');
  return 0;
}

// Run as a script (not imported by the test).
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) process.exitCode = await main();
