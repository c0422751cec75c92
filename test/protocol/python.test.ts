// The Python SDK's wire types (protocol/python.ts → python/pagewire/types.py): fresh against the
// wire's schemas, and the JSON Schema constructs the wire uses written as Python 3.10 can run them
// (required fields in a base class for want of NotRequired, unions named by their constants,
// shared fields hoisted, fields that are not Python names in the functional form).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PYTHON_DIR, staleFiles } from '../../protocol/generate.ts';
import { emitPythonTypes, pascal, renderPython } from '../../protocol/python.ts';
import { readFileSync } from 'node:fs';
import type { OpenRpcDocument } from '../../src/rpc/discover.ts';
import { VERSION } from '../../src/version.ts';

const s = suite('python types');

s('python/pagewire/types.py is fresh (what `generate.ts --check` checks)', () => {
  assert.equal(staleFiles([renderPython()], PYTHON_DIR), [], 'run `npm run gen`');
});

s('every wire method has its params and result types, with the names of pagewire/protocol', () => {
  const text = renderPython().content;
  for (const name of ['ActParams', 'ActResult', 'Observation', 'EventsPollResult', 'SessionEvent', 'Action', 'WaitFor', 'Expectation']) {
    assert.match(text, new RegExp(`^(class ${name}\\(|${name} = )`, 'm'), name);
  }
  assert.match(text, '    "events.poll": (EventsPollParams, EventsPollResult),');
  assert.match(text, '"session_not_found": -32004,');
  assert.is(pascal('session.storage_state.StorageOrigin'), 'SessionStorageStateStorageOrigin');
  // The package is the server's version, as the types say.
  assert.match(readFileSync(new URL('../../python/pyproject.toml', import.meta.url), 'utf8'), `\nversion = "${VERSION}"\n`);
  assert.match(text, `VERSION = "${VERSION}"`);
});

s('required and optional fields, $refs, unions, shared fields and names Python cannot take', () => {
  const event = (kind: string) => ({
    type: 'object',
    properties: { seq: { type: 'integer' }, time: { type: 'number' }, at: { type: 'string' }, kind: { type: 'string', const: kind } },
    required: ['seq', 'time', 'at', 'kind'],
  });
  const doc = {
    openrpc: '1.2.6',
    info: { title: 't', version: '0' },
    methods: [
      {
        name: 'thing.get',
        summary: 'Get a thing.',
        paramStructure: 'by-name',
        params: [{ name: 'id', required: true, schema: { type: 'string' } }, {
          name: 'deep',
          required: false,
          schema: { type: 'boolean' },
        }],
        result: { name: 'result', schema: { $ref: '#/components/schemas/Thing' } },
      },
    ],
    components: {
      schemas: {
        Happening: { anyOf: [event('opened'), event('closed')] },
        Thing: {
          type: 'object',
          properties: {
            events: { type: 'array', items: { $ref: '#/components/schemas/Happening' } },
            odd: { type: 'object', properties: { from: { type: 'string' } } },
            note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          },
          required: ['events'],
        },
      },
      errors: {},
    },
  } as unknown as OpenRpcDocument;
  const text = emitPythonTypes(doc);
  assert.match(text, 'class _ThingGetParamsRequired(TypedDict):\n    id: str\n');
  assert.match(text, 'class ThingGetParams(_ThingGetParamsRequired, total=False):');
  assert.match(text, 'events: list[Happening]');
  assert.match(text, 'Happening = HappeningOpened | HappeningClosed\n');
  assert.match(text, 'note: str | None');
  assert.match(text, 'ThingOdd = TypedDict("ThingOdd", {"from": "str"}, total=False)');
  // The three fields both kinds of a named union have are written once, in a base both derive from.
  assert.match(
    text,
    'class _HappeningFields(TypedDict):\n    """What every Happening has."""\n    seq: int\n    time: float\n    at: str\n',
  );
  assert.match(text, 'class HappeningOpened(_HappeningFields):\n    kind: Literal["opened"]\n');
  assert.ok(text.indexOf('class _HappeningFields') < text.indexOf('class HappeningOpened'), 'the base comes first');
  assert.match(text, 'ThingGetResult = Thing\n');
  assert.match(text, '    "thing.get": (ThingGetParams, ThingGetResult),');
});

s.run();
