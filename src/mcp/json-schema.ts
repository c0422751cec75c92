// JSON Schemas for MCP tools, derived from the wire's zod schemas. An input schema is what a host
// hands the model with every request, so it is cut down to what a model uses to write a call
// (names, types, enums, required fields, short descriptions): bounds, patterns and strictness stay
// with the wire, which validates every call and answers invalid_params with where and why.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

/** Keywords a model does not need to write a valid call; the wire's own validation keeps them. */
const DROPPED = new Set([
  '$schema',
  'additionalProperties',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
  'uniqueItems',
  'format',
]);

/** The JSON Schema of what a call may send (zod's input side: before transforms and defaults). */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/**
 * The JSON Schema of a result, for `outputSchema` (kept whole: hosts validate against it), in
 * words that draft-07 and 2020-12 read alike: 2025-era clients (SDK 1.x) validate with Ajv's
 * draft-07, 2026-era ones with 2020-12 (Ajv 2020, or cfworker in browsers), and a schema that one
 * of them reads differently refuses pagewire's own results there.
 */
export function outputJsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  // Without `$schema`: draft-07 Ajv refuses an unknown dialect URI outright, and without one each
  // client reads the schema in its own draft.
  return portable(rest);
}

/**
 * PURE: the schema with every tuple (2020-12's `prefixItems` with `items: false`) written as an
 * array of its length whose items are any of the tuple's member schemas. Draft-07 does not know
 * `prefixItems` and reads `items: false` as "no items at all" (an observation's boxes, four
 * numbers each, were refused); its own tuple form (`items` as a list) is an error in 2020-12.
 * Nothing else zod emits for the wire differs between the two.
 */
export function portable(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) out[key] = portableValue(value);
  const members = out['prefixItems'];
  if (!Array.isArray(members)) return out;
  const { prefixItems: _members, items: rest, ...array } = out;
  // Past the listed members: none (`items: false`), more of a schema, or anything (then any item goes).
  if (rest !== false && !isRecord(rest)) return array;
  const all = isRecord(rest) ? [...members, rest] : members;
  const distinct = all.filter((member, at) => all.findIndex((other) => JSON.stringify(other) === JSON.stringify(member)) === at);
  const items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
  return { ...array, items, ...(rest === false ? { maxItems: members.length } : {}) };
}

function portableValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portableValue);
  return isRecord(value) ? portable(value) : value;
}

/**
 * PURE: the schema without the keywords in DROPPED, and with a union of object schemas (a
 * discriminated action, "exactly one of") merged into one object whose fields are every
 * member's: a model reads one list of fields, and the wire tells it when a combination is wrong.
 */
export function compact(schema: JsonSchema): JsonSchema {
  const union = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (union && union.length > 0 && union.every(isObjectSchema)) {
    const { anyOf: _a, oneOf: _o, ...rest } = schema;
    return compact({ ...rest, ...mergeObjects(union) });
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue;
    if (key === 'properties' && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, field]) => [name, isRecord(field) ? compact(field) : field]));
    } else if ((key === 'items' || key === 'not') && isRecord(value)) {
      out[key] = compact(value);
    } else if ((key === 'anyOf' || key === 'oneOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((member) => (isRecord(member) ? compact(member) : member));
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Object members of a union as one object: `const` values of one field become its enum. */
function mergeObjects(members: JsonSchema[]): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const member of members) {
    for (const [name, field] of Object.entries((member['properties'] ?? {}) as Record<string, JsonSchema>)) {
      const seen = properties[name];
      if (seen === undefined) properties[name] = constToEnum(field);
      else if ('const' in field && Array.isArray(seen['enum']) && !seen['enum'].includes(field['const'])) {
        seen['enum'] = [...seen['enum'], field['const']];
      }
    }
  }
  // Required in every member: required in the merged object (the discriminator, typically).
  const required = members
    .map((member) => (member['required'] ?? []) as string[])
    .reduce((common, next) => common.filter((name) => next.includes(name)));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

function constToEnum(field: JsonSchema): JsonSchema {
  if (!('const' in field)) return { ...field };
  const { const: value, ...rest } = field;
  return { ...rest, enum: [value] };
}

function isObjectSchema(schema: unknown): schema is JsonSchema {
  return isRecord(schema) && schema['type'] === 'object' && isRecord(schema['properties']);
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A JSON Schema as the SDK's registerTool takes a schema (Standard Schema): listed as it is, and
 * handing every value through untouched (the wire validates arguments; results are the wire's own).
 */
export function passThrough(json: JsonSchema) {
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'pagewire',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}
