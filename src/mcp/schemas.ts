// One lookup for what each tool takes and returns: the params and result schemas of its wire
// method(s), from the method table (src/wire). The input side is compacted for the
// model (json-schema.ts); the output side is whole.
import { z } from 'zod';
import { rpcError } from '../wire/errors.ts';
import { downloadsList, EVENT_KINDS, eventFields, eventOf } from '../wire/events.ts';
import type { WireMethod } from '../wire/method.ts';
import { compact, inputJsonSchema, type JsonSchema, outputJsonSchema } from './json-schema.ts';
import type { ToolSpec } from './tools.ts';

export interface WireSchemas {
  params(method: string): z.ZodType;
  result(method: string): z.ZodType;
}

export function wireSchemas(methods: readonly WireMethod[]): WireSchemas {
  const byName = new Map(methods.map((method) => [method.name, method]));
  const method = (name: string) => {
    const found = byName.get(name);
    if (!found) throw new Error(`no wire method ${name} for an MCP tool`);
    return found;
  };
  return { params: (name) => method(name).params, result: (name) => method(name).result };
}

/** One retained event of a session, as browser_events lists it: an `event` notification less its subscription fields. */
const retainedEvent = z.discriminatedUnion(
  'kind',
  EVENT_KINDS.map((kind) => eventOf(kind, { ...eventFields, session_id: z.string() })) as unknown as [
    ReturnType<typeof eventOf>,
    ...ReturnType<typeof eventOf>[],
  ],
);

/** browser_events' result: the retained events after a seq, and downloads.list's list. */
export const eventsResult = z.object({
  events: z.array(retainedEvent),
  last_seq: z.number().int().min(0).describe('The seq of the newest event retained (0: none yet)'),
  downloads: downloadsList.result.shape.downloads,
  more_after_seq: z.number().int().min(0).optional().describe('Cut at the byte budget: the events after this seq are still to read'),
});

/** The index in an MCP result's `content` of the image block (the text block is first). */
export const IMAGE_CONTENT_INDEX = 1;

/** An image as structuredContent carries it: the wire's fields but `data`, and where the bytes are. */
function imageNamed(image: z.ZodObject): z.ZodObject {
  return image.omit({ data: true }).extend({
    image_content: z
      .literal(IMAGE_CONTENT_INDEX)
      .describe('The index in `content` of the image block that holds the bytes (base64, sent only there)'),
  });
}

/** The index in an MCP result's `content` of the embedded resource block (a PDF; the text block is first). */
export const RESOURCE_CONTENT_INDEX = 1;

/** A wire result schema as structuredContent carries it for a tool whose results hold an image or name a file. */
function structuredResult(spec: ToolSpec, result: z.ZodType): z.ZodType {
  if (spec.file !== undefined) {
    return (result as z.ZodObject).extend({
      resource_content: z
        .literal(RESOURCE_CONTENT_INDEX)
        .optional()
        .describe('The index in `content` of the embedded resource holding the file (absent: too large, open `path`)'),
    });
  }
  if (spec.image === undefined) return result;
  const object = result as z.ZodObject;
  if (spec.image === 'result') return imageNamed(object);
  const screenshot = object.shape['screenshot'] as z.ZodOptional<z.ZodObject>;
  // safeExtend: act's result carries a refinement, which a plain extend would drop.
  return object.safeExtend({ screenshot: imageNamed(screenshot.unwrap()).optional() });
}

/** The input schema a host hands the model for the tool. */
export function toolInputSchema(spec: ToolSpec, schemas: WireSchemas): JsonSchema {
  if (typeof spec.methods === 'string') {
    const schema = sharedIdsPlain(compact(inputJsonSchema(schemas.params(spec.methods))));
    return spec.name === 'browser_act' ? inlineAction(schema) : without(schema, spec.hidden ?? []);
  }
  // One object for every action: `action` plus the fields of all the methods it maps onto.
  const properties: Record<string, unknown> = { action: { type: 'string', enum: Object.keys(spec.methods) } };
  for (const method of Object.values(spec.methods)) {
    const schema = sharedIdsPlain(compact(inputJsonSchema(schemas.params(method))));
    Object.assign(properties, schema['properties'] ?? {});
  }
  for (const [name, summary] of Object.entries(SUMMARISED)) if (properties[name]) properties[name] = summary;
  for (const name of spec.hidden ?? []) delete properties[name];
  return { type: 'object', properties, required: ['action'] };
}

/**
 * The ids most tools take, whose meaning when omitted browser_observe's description says once,
 * and the budget, the cursor and the format, which it says once too.
 */
const SHARED_IDS = ['session_id', 'target_id', 'frame_id', 'max_bytes', 'cursor', 'format'];

/** The schema with the shared fields' descriptions left out: said once, not in every tool. */
function sharedIdsPlain(schema: JsonSchema): JsonSchema {
  const properties = schema['properties'] as Record<string, JsonSchema> | undefined;
  if (!properties) return schema;
  const plain = Object.fromEntries(
    Object.entries(properties).map(([name, field]) => {
      if (!SHARED_IDS.includes(name)) return [name, field];
      const { description: _said, ...rest } = field;
      return [name, rest];
    }),
  );
  return { ...schema, properties: plain };
}

/**
 * Fields whose whole schema is long and whose shape a model knows by name: described, not spelled
 * out (the wire validates them all the same).
 */
const SUMMARISED: Record<string, JsonSchema> = {
  storage_state: { type: 'object', description: 'A Playwright storageState: {cookies, origins}' },
};

/**
 * The tool's outputSchema: its methods' result schemas, or the JSON-RPC error object a tool error
 * carries as its structuredContent (2025-era clients check structuredContent against the schema
 * whether or not the result is an error).
 */
export function toolOutputSchema(spec: ToolSpec, schemas: WireSchemas): JsonSchema {
  const methods = typeof spec.methods === 'string' ? [spec.methods] : Object.values(spec.methods);
  const results = spec.name === 'browser_events' ? [eventsResult] : methods.map((method) => structuredResult(spec, schemas.result(method)));
  const json = [...results, rpcError].map(outputJsonSchema);
  // MCP wants an object root: the alternatives go under it, and their named sub-schemas move up
  // to it (a `$ref` of `#/$defs/…` is read from the root).
  const $defs: Record<string, unknown> = {};
  const anyOf = json.map(({ $defs: defs, ...member }) => {
    Object.assign($defs, defs ?? {});
    return member;
  });
  return { type: 'object', anyOf, ...(Object.keys($defs).length > 0 ? { $defs } : {}) };
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
      description: "A batch instead of one inline action: [{action, …that action's fields}, …], 1–20, run in order",
    };
  }
  const { required: listed, ...rest } = schema;
  const required = ((listed ?? []) as string[]).filter((name) => name !== 'state_id');
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}

function without(schema: JsonSchema, hidden: readonly string[]): JsonSchema {
  if (hidden.length === 0) return schema;
  const properties = Object.fromEntries(
    Object.entries((schema['properties'] ?? {}) as JsonSchema).filter(([name]) => !hidden.includes(name)),
  );
  return { ...schema, properties };
}
