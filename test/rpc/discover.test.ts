import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ERROR_CODES } from '../../src/errors.ts';
import { type AnyMethodDef, defineMethod } from '../../src/rpc/define.ts';
import { buildOpenRpcDocument, type DescribedMethod, type OpenRpcDocument } from '../../src/rpc/discover.ts';
import { METHODS } from '../../src/wire/index.ts';
import { VERSION } from '../../src/version.ts';
import { startTestServer } from '../helpers/pagewire.ts';

const noop = () => Promise.resolve({});

interface TreeNode {
  name: string;
  children: TreeNode[];
}
const TreeNode: z.ZodType<TreeNode> = z.object({
  name: z.string(),
  get children() {
    return z.array(TreeNode);
  },
});

const sample: AnyMethodDef[] = [
  defineMethod({
    name: 'session.create',
    summary: 'Creates a session',
    params: z.object({
      name: z.string().describe('a label').optional(),
      viewport: z.object({ width: z.number().int().min(1), height: z.number().int().min(1) }).optional(),
      dialogs: z.enum(['hold', 'accept', 'dismiss']).default('hold'),
    }),
    result: z.object({}),
    handler: noop,
  }),
  defineMethod({
    name: 'observe',
    summary: 'Observes a tab',
    params: z.object({ max_elements: z.number().int().min(1).max(500).optional(), since: z.string().optional() }).strict(),
    result: z.object({ state_id: z.string(), tree: z.string() }),
    handler: () => Promise.resolve({ state_id: 's1', tree: '' }),
  }),
  defineMethod({
    name: 'act',
    summary: 'Acts on a state',
    params: z.union([
      z.object({ state_id: z.string(), action: z.literal('click'), ref: z.string() }),
      z.object({ state_id: z.string(), actions: z.array(z.object({ action: z.string() })).min(1).max(20) }),
    ]),
    result: z.object({}),
    handler: noop,
  }),
  defineMethod({
    name: 'tree.echo',
    summary: 'Recursive params',
    params: z.object({ root: TreeNode, when: z.date().optional(), n: z.string().transform((v) => v.length) }),
    result: z.object({}),
    handler: noop,
  }),
  defineMethod({ name: 'server.info', summary: 'No params', params: z.object({}), result: z.object({}), handler: noop }),
];

function assertSchemaObject(value: unknown, where: string): void {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${where}: schema must be an object`);
}

/** Every `$ref` in the document must point at something that exists. */
function assertRefsResolve(doc: OpenRpcDocument): void {
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (value === null || typeof value !== 'object') return;
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref') {
        assert.type(item, 'string');
        const match = /^#\/components\/schemas\/(.+)$/.exec(item as string);
        assert.ok(match, `unexpected $ref ${String(item)}`);
        assert.ok(match![1]! in doc.components.schemas, `dangling $ref ${String(item)}`);
      } else walk(item);
    }
  };
  walk(doc.methods);
  walk(doc.components.schemas);
}

function checkDocument(methods: readonly DescribedMethod[]): OpenRpcDocument {
  const doc = buildOpenRpcDocument(methods, { version: '1.2.3' });
  assert.is(doc.openrpc, '1.2.6');
  assert.equal(doc.info, { title: 'pagewire', version: '1.2.3' });
  assert.equal(
    doc.methods.map((m) => m.name),
    methods.map((m) => m.name),
  );
  for (const method of doc.methods) {
    assert.is(method.paramStructure, 'by-name');
    assert.type(method.summary, 'string');
    assert.ok(Array.isArray(method.params));
    for (const param of method.params) {
      assert.type(param.name, 'string');
      assert.type(param.required, 'boolean');
      assertSchemaObject(param.schema, `${method.name}.${param.name}`);
    }
    assert.is(method.result.name, 'result');
    assertSchemaObject(method.result.schema, `${method.name} result`);
  }
  // The document is plain JSON, as it goes over the wire.
  assert.equal(JSON.parse(JSON.stringify(doc)), doc);
  assertRefsResolve(doc);
  return doc;
}

const s = suite('rpc.discover');

s('every method becomes an OpenRPC method with by-name params', () => {
  const doc = checkDocument(sample);
  const create = doc.methods.find((m) => m.name === 'session.create')!;
  assert.equal(
    create.params.map((p) => [p.name, p.required]),
    [
      ['name', false],
      ['viewport', false],
      ['dialogs', false],
    ],
  );
  assert.is(create.params[0]!.description, 'a label');
  assert.equal(create.params[2]!.schema['enum'], ['hold', 'accept', 'dismiss']);
  assert.is(create.params[2]!.schema['default'], 'hold');
  assert.equal(doc.methods.find((m) => m.name === 'server.info')!.params, []);
});

s('param schemas come from the same zod schemas (constraints included)', () => {
  const doc = checkDocument(sample);
  const observe = doc.methods.find((m) => m.name === 'observe')!;
  const max = observe.params.find((p) => p.name === 'max_elements')!;
  assert.is(max.schema['type'], 'integer');
  assert.is(max.schema['minimum'], 1);
  assert.is(max.schema['maximum'], 500);
  assert.is(observe.result.schema['type'], 'object');
  assert.equal(observe.result.schema['required'], ['state_id', 'tree']);
  assert.not.ok(JSON.stringify(doc).includes('"$schema"'));
});

s('a union of shapes lists every name, required only when every branch needs it', () => {
  const doc = checkDocument(sample);
  const act = doc.methods.find((m) => m.name === 'act')!;
  const required = Object.fromEntries(act.params.map((p) => [p.name, p.required]));
  assert.equal(required, { state_id: true, action: false, ref: false, actions: false });
  assert.ok(act['x-params-schema'], 'the whole union is kept next to the per-name list');
  assert.ok(Array.isArray(act['x-params-schema']!['anyOf']));
});

s('recursive schemas are hoisted to components; unrepresentable types become {}', () => {
  const doc = checkDocument(sample);
  const tree = doc.methods.find((m) => m.name === 'tree.echo')!;
  assert.ok(Object.keys(doc.components.schemas).length > 0);
  assert.equal(tree.params.find((p) => p.name === 'when')!.schema, {});
  // Params are described as sent (input side of a transform).
  assert.is(tree.params.find((p) => p.name === 'n')!.schema['type'], 'string');
});

s('the error table is listed', () => {
  const doc = checkDocument(sample);
  for (const [word, code] of Object.entries(ERROR_CODES)) {
    assert.is(doc.components.errors[word]!.code, code);
    assert.is(doc.components.errors[word]!.data.error_type, word);
  }
});

s('named sub-schemas that point at each other are listed once, whichever methods use them', () => {
  const leaf = z.object({ ref: z.string() }).meta({ id: 'Leaf' });
  const branch = z.object({ leaves: z.array(leaf) }).meta({ id: 'Branch' });
  const doc = checkDocument([
    defineMethod({
      name: 'one',
      summary: 'A branch',
      params: z.object({}),
      result: branch,
      handler: () => Promise.resolve({ leaves: [] }),
    }),
    defineMethod({
      name: 'two',
      summary: 'Branches',
      params: z.object({}),
      result: z.object({ all: z.array(branch) }),
      handler: () => Promise.resolve({ all: [] }),
    }),
  ]);
  assert.equal(Object.keys(doc.components.schemas).sort(), ['Branch', 'Leaf']);
});

s("the server's rpc.discover: every method of the wire table, with its params and a result schema", async () => {
  const { server, connect } = await startTestServer(['--allow-raw-cdp']);
  const client = await connect();
  const doc = await client.call('rpc.discover');
  client.close();
  await server.close();
  assert.equal(
    doc.methods.map((m) => m.name),
    Object.keys(METHODS),
  );
  for (const method of doc.methods) {
    const schema = method.result.schema;
    assert.ok(
      schema['type'] !== undefined || schema['$ref'] !== undefined || schema['anyOf'] !== undefined,
      `${method.name}: empty result schema`,
    );
  }
  assertRefsResolve(doc);
  // The server describes exactly the protocol's schemas (act's key check is invisible to JSON Schema).
  assert.equal(doc, buildOpenRpcDocument(Object.values(METHODS), { version: VERSION }));
});

s.run();
