// The Python SDK's wire types (python/pagewire/types.py), written from the JSON Schema of the
// wire's zod schemas: the OpenRPC document rpc.discover serves, built from the same method table.
// Every named shape, every method's params and result become TypedDicts of the same names and
// fields as `pagewire/protocol`, so the Python names cannot drift from the wire (`npm run gen --
// --check` fails on a stale file, as for the CDP types).
//
// TypedDicts rather than dataclasses: a result is the wire's dict itself, typed for the checker,
// with every field a newer server adds still in it and nothing converted per call.
import { buildOpenRpcDocument, type OpenRpcDocument } from '../src/rpc/discover.ts';
import { ERROR_CODES } from '../src/errors.ts';
import { METHODS } from '../src/wire/methods.ts';
import { PROTOCOL_VERSION, VERSION } from '../src/version.ts';
import { NAVIGATIONS } from '../src/wire/navigations.ts';

type Schema = Record<string, unknown>;

/**
 * Shapes the wire writes inline but `pagewire/protocol` names (src/wire/index.ts): the Python
 * types take those names instead of ones made from where the shape sits.
 */
const PROTOCOL_NAMES: Record<string, string> = {
  ActParamsActionsItem: 'Action',
  ActParamsWaitFor: 'WaitFor',
  ActParamsExpect: 'Expectation',
};

const PYTHON_KEYWORDS = new Set(
  ('False None True and as assert async await break class continue def del elif else except finally for from global if import ' +
    'in is lambda nonlocal not or pass raise return try while with yield').split(' '),
);

/** `session.storage_state.StorageOrigin` → `SessionStorageStateStorageOrigin`, `tabs.new` → `TabsNew`. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

function isRecord(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function literal(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return 'None';
  return String(value);
}

interface Field {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly description: string | undefined;
}

/** One TypedDict (object) or alias (anything else) to write. */
type Definition =
  | { kind: 'class'; name: string; doc: string | undefined; fields: Field[]; base?: string }
  | { kind: 'alias'; name: string; type: string; dependsOn: string[] };

class PythonTypes {
  readonly #definitions = new Map<string, Definition>();
  readonly #componentNames = new Map<string, string>();

  readonly components: Record<string, Schema>;

  constructor(components: Record<string, Schema>) {
    this.components = components;
    for (const name of Object.keys(components)) this.#componentNames.set(name, pascal(name));
  }

  get definitions(): Definition[] {
    return [...this.#definitions.values()];
  }

  /** Defines `name` from a schema (a class for an object, an alias otherwise). */
  define(name: string, schema: Schema, doc?: string): void {
    if (this.#definitions.has(name)) return;
    const object = this.#objectOf(schema);
    if (object) {
      // Claimed before the fields are read: a shape may refer to itself.
      const definition: Definition = { kind: 'class', name, doc: doc ?? describe(schema), fields: [] };
      this.#definitions.set(name, definition);
      definition.fields.push(...this.#fields(name, object));
      return;
    }
    const dependsOn: string[] = [];
    const type = this.type(schema, name, dependsOn);
    // A method's result that is a named shape of the same name (ActResult) is that shape.
    if (type === name) return;
    this.#definitions.set(name, { kind: 'alias', name, type, dependsOn });
  }

  /** The Python type of a schema; anonymous objects become classes named after `hint`. */
  type(schema: Schema, hint: string, dependsOn: string[] = []): string {
    const named = PROTOCOL_NAMES[hint];
    if (named !== undefined) {
      this.define(named, schema);
      dependsOn.push(named);
      return named;
    }
    const ref = refOf(schema);
    if (ref !== undefined) {
      const name = this.#componentNames.get(ref);
      if (name === undefined) throw new Error(`unknown $ref ${ref}`);
      this.define(name, this.components[ref]!);
      dependsOn.push(name);
      return name;
    }
    if ('const' in schema) return `Literal[${literal(schema['const'])}]`;
    if (Array.isArray(schema['enum'])) return `Literal[${schema['enum'].map(literal).join(', ')}]`;
    const alternatives = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
    if (Array.isArray(alternatives)) {
      const types = alternatives.map((branch, index) => this.type(branch, `${hint}${branchSuffix(branch, index)}`, dependsOn));
      return [...new Set(types)].join(' | ');
    }
    const type = schema['type'];
    if (Array.isArray(type)) return type.map((one) => this.type({ ...schema, type: one }, hint, dependsOn)).join(' | ');
    switch (type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        return `list[${isRecord(schema['items']) ? this.type(schema['items'], `${hint}Item`, dependsOn) : 'Any'}]`;
      case 'object': {
        if (this.#objectOf(schema)) {
          this.define(hint, schema);
          dependsOn.push(hint);
          return hint;
        }
        const values = schema['additionalProperties'];
        return `dict[str, ${isRecord(values) ? this.type(values, `${hint}Value`, dependsOn) : 'Any'}]`;
      }
      default:
        return 'Any';
    }
  }

  #objectOf(schema: Schema): { properties: Record<string, Schema>; required: string[] } | undefined {
    if (refOf(schema) !== undefined || schema['anyOf'] || schema['oneOf']) return undefined;
    if (!isRecord(schema['properties']) || Object.keys(schema['properties']).length === 0) return undefined;
    return { properties: schema['properties'] as Record<string, Schema>, required: (schema['required'] as string[] | undefined) ?? [] };
  }

  #fields(owner: string, object: { properties: Record<string, Schema>; required: string[] }): Field[] {
    return Object.entries(object.properties).map(([name, schema]) => ({
      name,
      type: this.type(schema, `${owner}${pascal(name)}`),
      required: object.required.includes(name),
      description: describe(schema),
    }));
  }
}

function refOf(schema: Schema): string | undefined {
  const direct = schema['$ref'];
  if (typeof direct === 'string') {
    return decodeURIComponent(direct.slice(direct.lastIndexOf('/') + 1)).replace(/~1/g, '/').replace(/~0/g, '~');
  }
  // zod writes a described reference as `allOf: [{$ref}]`.
  const all = schema['allOf'];
  if (Array.isArray(all) && all.length === 1 && isRecord(all[0])) return refOf(all[0]);
  return undefined;
}

/** A union branch's name: the value of its discriminating constant, or its first field. */
function branchSuffix(branch: Schema, index: number): string {
  const properties = isRecord(branch['properties']) ? (branch['properties'] as Record<string, Schema>) : {};
  for (const property of Object.values(properties)) {
    if (typeof property['const'] === 'string') return pascal(property['const']);
  }
  const first = Object.keys(properties)[0];
  return first !== undefined ? pascal(first) : String(index + 1);
}

function describe(schema: Schema): string | undefined {
  return typeof schema['description'] === 'string' ? schema['description'] : undefined;
}

function isIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !PYTHON_KEYWORDS.has(name);
}

function docstring(text: string, indent: string): string {
  return `${indent}"""${text.replaceAll('\\', '\\\\').replaceAll('"""', '\\"\\"\\"')}"""\n`;
}

function comment(text: string, indent: string): string {
  return text.split('\n').map((line) => `${indent}#: ${line}\n`).join('');
}

function writeClass(definition: Extract<Definition, { kind: 'class' }>): string {
  const required = definition.fields.filter((field) => field.required);
  const optional = definition.fields.filter((field) => !field.required);
  if (!definition.fields.every((field) => isIdentifier(field.name))) {
    // A field that is not a Python name: the functional form, every field optional.
    const entries = definition.fields.map((field) => `${JSON.stringify(field.name)}: ${JSON.stringify(field.type)}`).join(', ');
    return `${definition.name} = TypedDict(${JSON.stringify(definition.name)}, {${entries}}, total=False)\n`;
  }
  const body = (fields: Field[]) =>
    fields.map((field) => `${field.description ? comment(field.description, '    ') : ''}    ${field.name}: ${field.type}\n`).join('');
  const doc = definition.doc ? docstring(definition.doc, '    ') : '';
  const parent = definition.base ?? 'TypedDict';
  if (required.length > 0 && optional.length > 0) {
    // Python 3.10 has no NotRequired: the required fields go in a base class, the rest are total=False.
    const base = `_${definition.name.replace(/^_/, '')}Required`;
    return `class ${base}(${parent}):\n${body(required)}\n\nclass ${definition.name}(${base}, total=False):\n${doc}${body(optional)}`;
  }
  if (definition.fields.length === 0) return `class ${definition.name}(${parent}):\n${doc || '    pass\n'}`;
  return `class ${definition.name}(${parent}${required.length === 0 ? ', total=False' : ''}):\n${doc}${body(definition.fields)}`;
}

/**
 * The fields every member of a union shares (the seq, time and ids of every event kind) go in one
 * base class the members derive from, written once instead of once per member. Returns the bases.
 */
function hoistShared(
  classes: ReadonlyMap<string, Extract<Definition, { kind: 'class' }>>,
  aliases: ReadonlyArray<Extract<Definition, { kind: 'alias' }>>,
): Array<Extract<Definition, { kind: 'class' }>> {
  const bases: Array<Extract<Definition, { kind: 'class' }>> = [];
  const same = (a: Field, b: Field) => a.name === b.name && a.type === b.type && a.required === b.required;
  for (const alias of aliases) {
    const members = alias.type.split(' | ').map((name) => classes.get(name));
    if (members.length < 2 || members.some((member) => member === undefined || member.base !== undefined)) continue;
    const [first, ...rest] = members as Array<Extract<Definition, { kind: 'class' }>>;
    const shared = first!.fields.filter((field) => rest.every((member) => member.fields.some((other) => same(field, other))));
    if (shared.length < 3) continue;
    const base = `_${alias.name}Fields`;
    bases.push({ kind: 'class', name: base, doc: `What every ${alias.name} has.`, fields: shared });
    for (const member of [first!, ...rest]) {
      member.fields = member.fields.filter((field) => !shared.some((one) => same(field, one)));
      member.base = base;
    }
  }
  return bases;
}

/** Aliases after the classes, each after the aliases it names (they are evaluated at import). */
function orderAliases(aliases: Array<Extract<Definition, { kind: 'alias' }>>): Array<Extract<Definition, { kind: 'alias' }>> {
  const byName = new Map(aliases.map((alias) => [alias.name, alias]));
  const done = new Set<string>();
  const out: Array<Extract<Definition, { kind: 'alias' }>> = [];
  const visit = (alias: Extract<Definition, { kind: 'alias' }>) => {
    if (done.has(alias.name)) return;
    done.add(alias.name);
    for (const name of alias.dependsOn) {
      const dependency = byName.get(name);
      if (dependency) visit(dependency);
    }
    out.push(alias);
  };
  for (const alias of aliases) visit(alias);
  return out;
}

/** The module's text, from the OpenRPC document of every wire method. */
export function emitPythonTypes(doc: OpenRpcDocument): string {
  const types = new PythonTypes(doc.components.schemas as Record<string, Schema>);
  const methods: Array<{ name: string; params: string; result: string }> = [];
  for (const method of doc.methods) {
    const base = pascal(method.name);
    const params: Schema = {
      type: 'object',
      properties: Object.fromEntries(method.params.map((param) => [param.name, param.schema as Schema])),
      required: method.params.filter((param) => param.required).map((param) => param.name),
    };
    types.define(`${base}Params`, params, `The params of ${method.name}: ${method.summary}`);
    const result = method.result.schema as Schema;
    const resultName = `${base}Result`;
    types.define(resultName, result, `What ${method.name} answers.`);
    methods.push({ name: method.name, params: `${base}Params`, result: resultName });
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) types.define(pascal(name), schema as Schema);

  const classes = types.definitions.filter((d): d is Extract<Definition, { kind: 'class' }> => d.kind === 'class');
  const aliases = orderAliases(types.definitions.filter((d): d is Extract<Definition, { kind: 'alias' }> => d.kind === 'alias'));
  // Written first: a class statement evaluates its bases.
  const bases = hoistShared(new Map(classes.map((one) => [one.name, one])), aliases);
  const parts = [
    "# Generated by protocol/python.ts from the wire's zod schemas (src/wire) through their JSON\n" +
    '# Schema: do not edit. `npm run gen` writes it, `npm run gen -- --check` fails when it is stale.\n' +
    '"""The pagewire wire types: every method\'s params and result, and the named shapes they use."""\n\n' +
    'from __future__ import annotations\n\n' +
    'from typing import Any, Literal, TypedDict\n',
    `#: The server version these types were generated from, and its wire contract's version.\nVERSION = ${
      JSON.stringify(VERSION)
    }\nPROTOCOL_VERSION = ${JSON.stringify(PROTOCOL_VERSION)}\n`,
    `#: The actions that, alone in an act, need no state_id (PROTOCOL.md §7).\nLONE_NAVIGATIONS = frozenset({${
      [...NAVIGATIONS].map((action) => JSON.stringify(action)).join(', ')
    }})\n`,
    ...bases.map(writeClass),
    ...classes.map(writeClass),
    ...aliases.map((alias) => `${alias.name} = ${alias.type}\n`),
    `MethodName = Literal[${methods.map((m) => JSON.stringify(m.name)).join(', ')}]\n`,
    '#: Every method: its params and result types.\n' +
    `METHODS: dict[str, tuple[Any, Any]] = {\n${
      methods.map((m) => `    ${JSON.stringify(m.name)}: (${m.params}, ${m.result}),\n`).join('')
    }}\n`,
    '#: The error words of a JSON-RPC error (`data.error_type`) and their codes.\n' +
    `ERROR_CODES: dict[str, int] = {\n${
      Object.entries(ERROR_CODES).map(([word, code]) => `    ${JSON.stringify(word)}: ${code},\n`).join('')
    }}\n`,
  ];
  return parts.join('\n\n');
}

/** The file as it should be, from the wire's own method table. */
export function renderPython(): { name: string; content: string } {
  const doc = buildOpenRpcDocument(Object.values(METHODS), { version: VERSION });
  return { name: 'types.py', content: emitPythonTypes(doc) };
}
