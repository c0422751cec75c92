// The outline of JSON text that is too deep to parse (src/rpc/json-outline.ts), checked against
// JSON.parse as the oracle: the same texts are JSON, the same `id` is read (last duplicate wins,
// escaped keys decoded, nested ids ignored), and batch elements get their own span and depth.
import process from 'node:process';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nestsDeeperThan, outlineJson } from '../../src/rpc/json-outline.ts';

const SEED = Number.parseInt(process.env['PAGEWIRE_FUZZ_SEED'] ?? '', 10);
const options = { numRuns: 2_000, ...(Number.isInteger(SEED) ? { seed: SEED } : {}) };

/**
 * What the server must read as a request's id: a string, a finite number or null; undefined for
 * an object without an `id` member (a notification).
 */
function idOf(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  if (!Object.hasOwn(value, 'id')) return undefined;
  const id = (value as Record<string, unknown>)['id'];
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Deepest array/object nesting of JSON text, strings skipped (duplicate keys count: they are in the text). */
function textDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ']' || c === '}') depth--;
  }
  return max;
}

function parses(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function checkAgainstParse(text: string): void {
  const outline = outlineJson(text);
  const parsed = parses(text);
  assert.is(outline !== undefined, parsed.ok, `JSON or not, as JSON.parse says: ${JSON.stringify(text).slice(0, 300)}`);
  if (!parsed.ok || outline === undefined) return;
  const value = parsed.value;
  assert.equal(outline.root.id, idOf(value), `the root's id in ${text.slice(0, 300)}`);
  assert.is(outline.root.depth, textDepth(text), `depth of ${text.slice(0, 300)}`);
  if (!Array.isArray(value)) {
    assert.is(outline.elements, undefined);
    return;
  }
  assert.is(outline.elements?.length, value.length);
  outline.elements!.forEach((element, i) => {
    assert.equal(JSON.parse(text.slice(element.start, element.end)), value[i], `element ${i} spans its own text`);
    assert.equal(element.id, idOf(value[i]), `element ${i}'s id`);
    assert.is(element.depth, textDepth(text.slice(element.start, element.end)) + 1, `element ${i}'s depth counts the batch`);
  });
}

// Requests written by hand, with the tricks a reader of ids could fall for.
const idValue = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true }).map((n) => (Number.isFinite(n) ? String(n) : '1e400')),
  fc.string().map((t) => JSON.stringify(t)),
  fc.constantFrom('null', 'true', 'false', '{}', '[1]', '{"id":1}', '-0', '0.5e-3', '1E+2', '"\\u0069d"'),
);
const key = fc.constantFrom(
  '"id"',
  '"\\u0069d"',
  '"i\\u0064"',
  '"\\u0069\\u0064"',
  '"ID"',
  '"id "',
  '"\\"id"',
  '"method"',
  '"params"',
  '"jsonrpc"',
  '"__proto__"',
);
const member = fc.tuple(key, fc.oneof(idValue, fc.json({ maxDepth: 3 }))).map(([k, v]) => `${k}:${v}`);
const request = fc
  .array(member, { maxLength: 6 })
  .chain((members) => fc.constantFrom('', ' ', '\n\t').map((ws) => `{${ws}${members.join(`${ws},${ws}`)}${ws}}`));
const batch = fc.array(fc.oneof(request, fc.json({ maxDepth: 2 })), { maxLength: 5 }).map((elements) => `[${elements.join(',')}]`);
const mutated = fc
  .tuple(fc.oneof(request, batch), fc.nat(), fc.constantFrom('delete', 'insert'), fc.constantFrom(...'{}[]",:\\0-.eE \t\u0001a'.split('')))
  .map(([text, at, op, ch]) => {
    const i = at % (text.length + 1);
    return op === 'delete' ? text.slice(0, i) + text.slice(i + 1) : text.slice(0, i) + ch + text.slice(i);
  });

const s = suite('json outline');

s('any JSON value: the same verdict, id, depth and elements as JSON.parse', () => {
  fc.assert(fc.property(fc.json({ maxDepth: 6 }), (text) => checkAgainstParse(text)), options);
  fc.assert(
    fc.property(
      fc.string({ unit: fc.constantFrom(...'{}[]",:0123456789.-+eE \\/trufalsnid'.split('')), maxLength: 60 }),
      (text) => checkAgainstParse(text),
    ),
    options,
  );
});

s('requests and batches with escaped, repeated and nested ids, and one-character mutations of them', () => {
  fc.assert(fc.property(request, (text) => checkAgainstParse(text)), options);
  fc.assert(fc.property(batch, (text) => checkAgainstParse(text)), options);
  fc.assert(fc.property(mutated, (text) => checkAgainstParse(text)), options);
});

s('the edges of the grammar', () => {
  for (
    const text of [
      '',
      ' ',
      '1',
      '-',
      '-0',
      '01',
      '1.',
      '.5',
      '1e',
      '1e+',
      '+1',
      '"\\u12"',
      '"\\u12G4"',
      '"\\ud800"',
      '"\u2028"',
      '"\u0000"',
      '[',
      ']',
      '[]',
      '[,]',
      '[1,]',
      '{}',
      '{,}',
      '{"a"}',
      '{"a":}',
      '{"a":1,}',
      '{"a" 1}',
      '{1:1}',
      'nul',
      'true false',
      '\ufeff{}',
      '{"id":1}\n',
      '\r\n[{"id":2}]\t',
      '{"id":1}{"id":2}',
      '[{"id":1}][{"id":2}]',
      '{"id":"\\/"}',
    ]
  ) {
    checkAgainstParse(text);
  }
});

s('too deep for JSON.parse to be cheap: read in linear time, without recursion', () => {
  const depth = 400_000;
  const text = `[{"jsonrpc":"2.0","id":"shallow","method":"m"},{"params":${'['.repeat(depth)}${']'.repeat(depth)},"id":"deep"}]`;
  assert.ok(nestsDeeperThan(text, 128));
  // CPU time, so a busy machine does not fail the bound.
  const started = process.cpuUsage();
  const outline = outlineJson(text)!;
  const { user, system } = process.cpuUsage(started);
  const took = (user + system) / 1000;
  assert.equal(
    outline.elements!.map((e) => [e.id, e.depth]),
    [
      ['shallow', 2],
      ['deep', depth + 2],
    ],
  );
  assert.ok(
    took < 1_000,
    `outlining ${text.length} characters cost ${Math.round(took)} ms of CPU (the event loop is shared by every client)`,
  );
});

s.run();
