// PROTOCOL.md §5 names the methods that take `frame_id`: observe, wait and frames.select. The others
// that concern a page (act, screenshot, dialog.handle, file_chooser.resolve…) refuse it like any
// unknown param. Read from the schemas that validate the params, so the page and the code agree.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { METHODS } from '../../src/wire/index.ts';

interface JsonSchema {
  properties?: Record<string, unknown>;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
}

/** The top-level param names a params schema admits, through unions and intersections. */
function paramNames(schema: JsonSchema): Set<string> {
  const names = new Set(Object.keys(schema.properties ?? {}));
  for (const part of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    for (const name of paramNames(part)) names.add(name);
  }
  return names;
}

const s = suite('frame_id');

s('only observe, wait and frames.select take frame_id; act, screenshot, dialog.handle and file_chooser.resolve refuse it', () => {
  const taking = Object.values(METHODS)
    .filter((method) => paramNames(z.toJSONSchema(method.params, { io: 'input', unrepresentable: 'any' }) as JsonSchema).has('frame_id'))
    .map((method) => method.name)
    .sort();
  assert.equal(taking, ['frames.select', 'observe', 'wait']);
  for (const method of [METHODS['act'], METHODS['screenshot'], METHODS['dialog.handle'], METHODS['file_chooser.resolve']]) {
    const parsed = method.params.safeParse({ frame_id: 'F1' });
    assert.ok(!parsed.success && parsed.error.issues.some((issue) => JSON.stringify(issue).includes('frame_id')), method.name);
  }
});

s.run();
