// The MCP tools' schemas, from the wire's: what a model is shown to write a call (compact), and
// what a host checks results against (whole, with the JSON-RPC error as an alternative).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { compact, inputJsonSchema, outputJsonSchema, portable } from '../../src/mcp/json-schema.ts';
import { toolInputSchema, toolOutputSchema, wireSchemas } from '../../src/mcp/schemas.ts';
import { TOOLS } from '../../src/mcp/tools.ts';
import { METHODS } from '../../src/wire/methods.ts';

const s = suite('mcp schemas');
const schemas = wireSchemas(Object.values(METHODS));
const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

s('compact drops what only the wire needs and merges a union of objects into one', () => {
  const schema = z
    .object({
      id: z.string().min(1).max(10).regex(/^a/),
      wait: z.union([
        z.object({ text: z.string() }).strict(),
        z.object({ url: z.string(), state: z.enum(['a', 'b']).optional() }).strict(),
      ]),
    })
    .strict();
  assert.equal(compact(inputJsonSchema(schema)), {
    type: 'object',
    properties: {
      id: { type: 'string' },
      wait: {
        type: 'object',
        properties: { text: { type: 'string' }, url: { type: 'string' }, state: { type: 'string', enum: ['a', 'b'] } },
      },
    },
    required: ['id', 'wait'],
  });
});

s('a discriminated union becomes one object whose discriminator lists every value', () => {
  const union = z.discriminatedUnion('action', [
    z.object({ action: z.literal('click'), ref: z.string() }),
    z.object({ action: z.literal('press'), key: z.string() }),
  ]);
  assert.equal(compact(inputJsonSchema(union)), {
    type: 'object',
    properties: { action: { type: 'string', enum: ['click', 'press'] }, ref: { type: 'string' }, key: { type: 'string' } },
    required: ['action'],
  });
});

s('browser_act shows the inline action fields typed, leaves state_id optional, and describes actions', () => {
  const input = toolInputSchema(tool('browser_act'), schemas);
  const properties = input['properties'] as Record<string, Record<string, unknown>>;
  assert.equal(properties['ref'], { type: 'string' });
  assert.equal(properties['click_count'], { type: 'integer' });
  assert.ok((properties['action']!['enum'] as string[]).includes('navigate'));
  assert.equal(properties['actions']!['items'] as Record<string, unknown>, { type: 'object' });
  assert.not.ok(((input['required'] ?? []) as string[]).includes('state_id'));
});

s('an action tool takes `action` and the fields of every method it maps onto', () => {
  const input = toolInputSchema(tool('browser_tabs'), schemas);
  const properties = input['properties'] as Record<string, Record<string, unknown>>;
  assert.equal(properties['action']!['enum'], ['list', 'new', 'select', 'close', 'frames']);
  for (const field of ['session_id', 'target_id', 'url', 'select']) assert.ok(field in properties, field);
  assert.equal(input['required'], ['action']);
});

s('browser_screenshot hides the size limits it fills in itself', () => {
  const properties = toolInputSchema(tool('browser_screenshot'), schemas)['properties'] as Record<string, unknown>;
  assert.not.ok('max_side' in properties);
  assert.ok('full_page' in properties);
});

s('every output schema has an object root, its sub-schemas at the root, and the JSON-RPC error as an alternative', () => {
  for (const spec of TOOLS) {
    const output = toolOutputSchema(spec, schemas);
    assert.is(output['type'], 'object', spec.name);
    const alternatives = output['anyOf'] as Array<Record<string, unknown>>;
    assert.ok(Array.isArray(alternatives), spec.name);
    assert.ok(alternatives.every((member) => !('$defs' in member)), `${spec.name}: $defs only at the root`);
    assert.ok(JSON.stringify(output).includes('"error_type"'), `${spec.name}: the error alternative`);
    for (const ref of JSON.stringify(output).match(/"#\/\$defs\/[^"]+"/g) ?? []) {
      const name = ref.slice('"#/$defs/'.length, -1);
      assert.ok(name in ((output['$defs'] ?? {}) as object), `${spec.name}: ${name} is defined`);
    }
  }
});

s('a tuple is written in words draft-07 and 2020-12 read alike: its members as the items, its length as bounds', () => {
  assert.equal(outputJsonSchema(z.tuple([z.number(), z.number(), z.number(), z.number()])), {
    type: 'array',
    minItems: 4,
    maxItems: 4,
    items: { type: 'number' },
  });
  assert.equal(
    portable({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: { type: 'boolean' }, minItems: 2 }),
    {
      type: 'array',
      minItems: 2,
      items: { anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] },
    },
  );
  assert.equal(portable({ type: 'array', prefixItems: [{ type: 'string' }] }), { type: 'array' }, 'any rest: any item');
  const nested = portable({ type: 'object', properties: { box: { type: 'array', prefixItems: [{ type: 'number' }], items: false } } });
  assert.equal(nested, { type: 'object', properties: { box: { type: 'array', items: { type: 'number' }, maxItems: 1 } } });
});

s('no output schema holds a keyword of one draft only (prefixItems; items false)', () => {
  for (const spec of TOOLS) {
    const text = JSON.stringify(toolOutputSchema(spec, schemas));
    assert.not.ok(text.includes('"prefixItems"'), spec.name);
    assert.not.ok(text.includes('"items":false'), spec.name);
  }
});

s.run();
