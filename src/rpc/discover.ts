// The OpenRPC document behind `rpc.discover`, generated from the very zod schemas that
// validate params and describe results, so the description cannot drift from the server.
import { z } from 'zod';
import { ERROR_CODES } from '../errors.ts';
import type { OpenRpcContentDescriptor, OpenRpcDocument, OpenRpcMethod, WireMethod } from '../wire/index.ts';
import { OPENRPC_VERSION } from '../wire/server.ts';

export { OPENRPC_VERSION, type OpenRpcContentDescriptor, type OpenRpcDocument, type OpenRpcMethod };

type JsonSchema = Record<string, unknown>;

/** What the document needs of a method: its wire description (a handler may come with it). */
export type DescribedMethod = WireMethod;

export interface OpenRpcInfo {
  version: string;
  title?: string;
  description?: string;
}

export function buildOpenRpcDocument(methods: readonly DescribedMethod[], info: OpenRpcInfo): OpenRpcDocument {
  const schemas: Record<string, JsonSchema> = {};
  const out: OpenRpcMethod[] = methods.map((method) => {
    const params = hoistDefinitions(convert(method.params, 'input'), method.name, schemas);
    const entry: OpenRpcMethod = {
      name: method.name,
      summary: method.summary,
      paramStructure: 'by-name',
      params: describeParams(params),
      result: {
        name: 'result',
        schema: hoistDefinitions(convert(method.result, 'output'), method.name, schemas),
      },
    };
    if (!isPlainObjectSchema(params)) entry['x-params-schema'] = params;
    return entry;
  });

  const errors: OpenRpcDocument['components']['errors'] = {};
  for (const [word, code] of Object.entries(ERROR_CODES)) {
    errors[word] = { code, message: word.replace(/_/g, ' '), data: { error_type: word } };
  }

  const doc: OpenRpcDocument = {
    openrpc: OPENRPC_VERSION,
    info: { title: info.title ?? 'pagewire', version: info.version },
    methods: out,
    components: { schemas, errors },
  };
  if (info.description !== undefined) doc.info.description = info.description;
  return doc;
}

// OpenRPC 1.2.6 schemas are JSON Schema draft-07. Params are described as the client sends
// them (`input`: before defaults and transforms); results as the server produces them.
// Things JSON Schema cannot express (a date, a transform's output) become `{}` rather than
// making discovery fail for the whole server.
function convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-07', io, unrepresentable: 'any' }) as JsonSchema;
  delete json['$schema'];
  return json;
}

function isPlainObjectSchema(schema: JsonSchema): boolean {
  return schema['type'] === 'object' && isRecord(schema['properties']) && schema['anyOf'] === undefined && schema['oneOf'] === undefined;
}

/**
 * One content descriptor per named param. For a union of object shapes the names are those
 * of every branch, required only when every branch requires them.
 */
function describeParams(schema: JsonSchema): OpenRpcContentDescriptor[] {
  const branches = objectBranches(schema);
  const byName = new Map<string, { schemas: JsonSchema[]; requiredIn: number }>();
  for (const branch of branches) {
    const properties = isRecord(branch['properties']) ? branch['properties'] : {};
    const required = Array.isArray(branch['required']) ? (branch['required'] as unknown[]) : [];
    for (const [name, propSchema] of Object.entries(properties)) {
      const slot = byName.get(name) ?? { schemas: [], requiredIn: 0 };
      if (isRecord(propSchema) && !slot.schemas.some((s) => sameJson(s, propSchema))) slot.schemas.push(propSchema);
      if (required.includes(name)) slot.requiredIn += 1;
      byName.set(name, slot);
    }
  }
  return [...byName].map(([name, slot]) => {
    const propSchema: JsonSchema = slot.schemas.length === 1 ? slot.schemas[0]! : slot.schemas.length === 0 ? {} : { anyOf: slot.schemas };
    const descriptor: OpenRpcContentDescriptor = { name, required: slot.requiredIn === branches.length, schema: propSchema };
    if (typeof propSchema['description'] === 'string') descriptor.description = propSchema['description'];
    return descriptor;
  });
}

function objectBranches(schema: JsonSchema): JsonSchema[] {
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) return list.filter(isRecord).flatMap(objectBranches);
  }
  return isRecord(schema['properties']) ? [schema] : [];
}

/**
 * Moves a schema's `definitions` (recursive or registered sub-schemas) into
 * `components.schemas` and points its `$ref`s there, so the per-param schemas split out of
 * it still resolve. zod numbers anonymous definitions per call (`__schema0`), so those are
 * prefixed with the method name; named ones (`.meta({id})`) are shared when identical.
 */
function hoistDefinitions(schema: JsonSchema, methodName: string, components: Record<string, JsonSchema>): JsonSchema {
  const defs = schema['definitions'];
  if (!isRecord(defs)) return schema;
  delete schema['definitions'];
  const rename = new Map<string, string>();
  for (const name of Object.keys(defs)) rename.set(name, name.startsWith('__schema') ? `${methodName}.${name}` : name);
  // A named definition is shared when it equals the one already listed, compared with its $refs
  // rewritten; renaming one changes the refs of those that point at it, hence the repeat.
  for (let moved = true; moved;) {
    moved = false;
    for (const [name, def] of Object.entries(defs)) {
      const shared = components[name];
      if (rename.get(name) !== name || shared === undefined || sameJson(shared, rewrite(def))) continue;
      rename.set(name, `${methodName}.${name}`);
      moved = true;
    }
  }
  function rewrite(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isRecord(value)) return value;
    const copy: JsonSchema = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/definitions/')) {
        const name = decodePointer(item.slice('#/definitions/'.length));
        copy[key] = `#/components/schemas/${encodePointer(rename.get(name) ?? name)}`;
      } else {
        copy[key] = rewrite(item);
      }
    }
    return copy;
  }
  for (const [name, def] of Object.entries(defs)) components[rename.get(name)!] = rewrite(def) as JsonSchema;
  return rewrite(schema) as JsonSchema;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function encodePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
