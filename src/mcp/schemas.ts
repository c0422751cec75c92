// One lookup for what each tool takes and returns: the params schema of its wire method(s) from
// the method table, and the result schema of the typed wire. The input side is compacted for the
// model (json-schema.ts); the output side is whole.
import type { z } from 'zod';
import type { AnyMethodDef } from '../rpc/define.ts';
import { compact, inputJsonSchema, outputJsonSchema, type JsonSchema } from './json-schema.ts';
import type { ToolSpec } from './tools.ts';

export interface WireSchemas {
  params(method: string): z.ZodType;
  /** undefined while the typed wire has no result schema for the method. */
  result(method: string): z.ZodType | undefined;
}

export function wireSchemas(methods: readonly AnyMethodDef[], results: (method: string) => z.ZodType | undefined): WireSchemas {
  const byName = new Map(methods.map((method) => [method.name, method]));
  return {
    params(name) {
      const method = byName.get(name);
      if (!method) throw new Error(`no wire method ${name} for an MCP tool`);
      return method.params;
    },
    result: results,
  };
}

/** The input schema a host hands the model for the tool. */
export function toolInputSchema(spec: ToolSpec, schemas: WireSchemas): JsonSchema {
  if (typeof spec.methods === 'string') {
    const schema = compact(inputJsonSchema(schemas.params(spec.methods)));
    return spec.name === 'browser_act' ? inlineAction(schema) : without(schema, spec.hidden ?? []);
  }
  // One object for every action: `action` plus the fields of all the methods it maps onto.
  const properties: Record<string, unknown> = { action: { type: 'string', enum: Object.keys(spec.methods) } };
  for (const method of Object.values(spec.methods)) {
    const schema = compact(inputJsonSchema(schemas.params(method)));
    Object.assign(properties, schema['properties'] ?? {});
  }
  return { type: 'object', properties, required: ['action'] };
}

/** The tool's outputSchema; undefined while any of its methods lacks a result schema. */
export function toolOutputSchema(spec: ToolSpec, schemas: WireSchemas): JsonSchema | undefined {
  if (spec.name === 'browser_events') return eventsOutput(schemas);
  const methods = typeof spec.methods === 'string' ? [spec.methods] : Object.values(spec.methods);
  const results = methods.map((method) => schemas.result(method));
  if (results.some((result) => result === undefined)) return undefined;
  const json = results.map((result) => outputJsonSchema(result!));
  // MCP wants an object root: several methods' results are alternatives under it.
  return json.length === 1 ? json[0] : { type: 'object', anyOf: json };
}

/**
 * act's params take an inline action's fields untyped (the action validates them); the model is
 * shown their types, taken from the same fields of `actions` items, and `actions` items are
 * described rather than spelled out again. state_id may be left out over MCP (tools.ts).
 */
function inlineAction(schema: JsonSchema): JsonSchema {
  const properties = { ...(schema['properties'] as Record<string, JsonSchema>) };
  const actions = properties['actions'] as JsonSchema | undefined;
  const itemFields = ((actions?.['items'] as JsonSchema | undefined)?.['properties'] ?? {}) as Record<string, JsonSchema>;
  for (const [name, field] of Object.entries(properties)) {
    if (Object.keys(field).length === 0 && itemFields[name]) properties[name] = itemFields[name];
  }
  if (actions) {
    properties['actions'] = {
      type: 'array',
      items: { type: 'object' },
      description: 'A batch instead of one inline action: [{action, …that action\'s fields}, …], 1–20, run in order',
    };
  }
  const { required: listed, ...rest } = schema;
  const required = ((listed ?? []) as string[]).filter((name) => name !== 'state_id');
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}

function without(schema: JsonSchema, hidden: readonly string[]): JsonSchema {
  if (hidden.length === 0) return schema;
  const properties = Object.fromEntries(Object.entries((schema['properties'] ?? {}) as JsonSchema).filter(([name]) => !hidden.includes(name)));
  return { ...schema, properties };
}

/** browser_events answers with retained events (as the wire delivers them) and downloads.list's list. */
function eventsOutput(schemas: WireSchemas): JsonSchema | undefined {
  const downloads = schemas.result('downloads.list');
  const event = schemas.result('event');
  if (!downloads || !event) return undefined;
  const downloadsJson = outputJsonSchema(downloads);
  return {
    type: 'object',
    properties: {
      events: { type: 'array', items: outputJsonSchema(event) },
      last_seq: { type: 'integer', minimum: 0 },
      downloads: (downloadsJson['properties'] as JsonSchema)['downloads'],
    },
    required: ['events', 'last_seq', 'downloads'],
  };
}
