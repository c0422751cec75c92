// Property-based fuzzing of the JSON-RPC layer (PROTOCOL.md §2, §3) against a real server over a
// real WebSocket: random and malformed text, deep nesting, huge strings, wrong types in every
// param of every method (taken from rpc.discover), prototype names, and batches of junk.
//
// Every case is checked against an oracle written from the contract, not from the server's
// code: which messages get a reply, the exact error word, code and id of each reply, bounded reply
// sizes; after each case a `server.info` must still be answered on the same socket. The loop never
// launches the browser: every call that could reach it has invalid params (checked at the end).
//
// Bounded for CI. PAGEWIRE_FUZZ_RUNS raises the number of runs of the main properties (default
// 300; the others scale with it); PAGEWIRE_FUZZ_SEED replays a failing run (the seed is printed
// with every failure).
import { Buffer } from 'node:buffer';
import process from 'node:process';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { parseConfig } from '../../src/config.ts';
import { MAX_NESTING_DEPTH } from '../../src/rpc/server.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createLogger } from '../../src/util/log.ts';
import { IS_DENO } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';

// ---- configuration ----------------------------------------------------------------------------

const DEFAULT_RUNS = 300;
const RUNS = positiveInt(process.env['PAGEWIRE_FUZZ_RUNS']) ?? DEFAULT_RUNS;
const SEED = integerOr(process.env['PAGEWIRE_FUZZ_SEED']) ?? Math.floor(Math.random() * 0x7fffffff);
/** Runs of a property whose default is `base` at the default scale. */
const runs = (base: number) => Math.max(1, Math.round((base * RUNS) / DEFAULT_RUNS));

const MAX_MESSAGE_BYTES = 1024 * 1024;
const MAX_BATCH = 100;
/** An error reply may echo its id; apart from that it stays small whatever the request held. */
const MAX_ERROR_REPLY_BYTES = 64 * 1024;
const REPLY_TIMEOUT_MS = 15_000;
/** Heap growth allowed over the memory run: tight with a real GC, generous without one. */
const HEAP_GROWTH_WITH_GC = 4 * 1024 * 1024;
const HEAP_GROWTH_WITHOUT_GC = 96 * 1024 * 1024;

function positiveInt(text: string | undefined): number | undefined {
  const n = Number(text);
  return text !== undefined && text !== '' && Number.isInteger(n) && n > 0 ? n : undefined;
}
function integerOr(text: string | undefined): number | undefined {
  const n = Number(text);
  return text !== undefined && text !== '' && Number.isInteger(n) ? n : undefined;
}

// ---- the contract: PROTOCOL.md §3 ------------------------------------------------------------

// Copied from PROTOCOL.md on purpose rather than imported from src/errors.ts: the oracle must not
// share a mistake with the code it checks.
const ERROR_CODES: Record<string, number> = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  forbidden: -32001,
  session_not_found: -32004,
  target_not_found: -32005,
  frame_not_found: -32006,
  modal_blocked: -32007,
  last_tab: -32008,
  browser_unavailable: -32009,
  operation_cancelled: -32010,
  timeout: -32011,
  no_modal: -32012,
  internal_error: -32603,
};

/** Methods that answer without a browser when called with no params. */
const BROWSER_FREE = new Set(['server.info', 'rpc.discover', 'session.list']);
const PROTO_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  'prototype',
];

// ---- the server and a raw client -------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonSchema = Record<string, unknown>;
type JsonType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

interface ParamModel {
  name: string;
  required: boolean;
  schema: JsonSchema;
  type: JsonType | undefined;
  /** act's inline action fields: checked only once the rest of the params are valid. */
  inline: boolean;
}
interface MethodModel {
  name: string;
  params: ParamModel[];
  names: Set<string>;
}

let server: RunningServer;
let url: string;
let wire: Wire;
let methods: MethodModel[] = [];
let methodsByName = new Map<string, MethodModel>();
/** server.info `limits.pending_requests_per_connection`, when the server has such a limit. */
let pendingLimit: number | undefined;
const logLines: string[] = [];
const crashes: string[] = [];
const onUncaught = (error: unknown) => crashes.push(`uncaught: ${String((error as Error)?.stack ?? error)}`);
const onUnhandled = (error: unknown) => crashes.push(`unhandled rejection: ${String((error as Error)?.stack ?? error)}`);
let prototypeNamesBefore: string[] = [];

class Wire {
  readonly ws: WebSocket;
  readonly #frames: string[] = [];
  #wake: (() => void) | undefined;
  closedWith: { code: number; reason: string } | undefined;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data: WebSocket.RawData) => {
      this.#frames.push(data.toString());
      this.#wake?.();
    });
    this.closed = new Promise((resolve) =>
      ws.once('close', (code: number, reason: Buffer) => {
        this.closedWith = { code, reason: reason.toString() };
        this.#wake?.();
        resolve(this.closedWith);
      })
    );
  }

  static open(target: string): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(target, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
      ws.once('open', () => resolve(new Wire(ws)));
      ws.once('error', reject);
    });
  }

  send(data: string | Buffer, options: { binary?: boolean } = {}): void {
    this.ws.send(data, options);
  }

  get pending(): number {
    return this.#frames.length;
  }

  /** The next frame, waiting until `deadline` (ms since epoch). */
  async next(deadline: number): Promise<string> {
    for (;;) {
      const frame = this.#frames.shift();
      if (frame !== undefined) return frame;
      if (this.closedWith) throw new Error(`the socket closed (${this.closedWith.code} ${this.closedWith.reason})`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('no reply in time');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  close(): void {
    this.ws.close();
  }
}

let probeCounter = 0;

/**
 * Sends `text`, then a `server.info` probe, and collects every frame up to the probe's answer
 * plus the `expected` number of frames for `text` (a reply may come after the probe's: elements
 * run concurrently). Anything beyond shows up in the next exchange and fails it.
 */
async function exchange(w: Wire, text: string, expected: number): Promise<string[]> {
  const deadline = Date.now() + REPLY_TIMEOUT_MS;
  w.send(text);
  let probeId = `__probe__${++probeCounter}`;
  w.send(JSON.stringify({ jsonrpc: '2.0', id: probeId, method: 'server.info' }));
  const frames: string[] = [];
  let probed = false;
  while (!probed || frames.length < expected) {
    const frame = await w.next(deadline);
    if (!probed && frame.length < 100_000 && frame.includes(probeId)) {
      const reply = JSON.parse(frame) as { id?: unknown; result?: { name?: string }; error?: { data?: { limit?: string } } };
      if (reply.id === probeId) {
        if (reply.error?.data?.limit !== undefined) {
          // Refused only because earlier calls were still in flight: ask again.
          probeId = `__probe__${++probeCounter}`;
          w.send(JSON.stringify({ jsonrpc: '2.0', id: probeId, method: 'server.info' }));
          continue;
        }
        assert.is(reply.result?.name, 'pagewire', `the socket stays usable: server.info after the case answered ${frame.slice(0, 300)}`);
        probed = true;
        continue;
      }
    }
    frames.push(frame);
  }
  return frames;
}

// ---- the oracle --------------------------------------------------------------------------------

type Id = string | number | null;
/** What one element must get back. `admitted`: its index among elements that pass the envelope checks. */
type One =
  | { kind: 'error'; type: string; id: Id; admitted?: number; params?: { bad: string[] } }
  | { kind: 'result'; id: Id; admitted?: number };
type Expectation = { kind: 'none' } | { kind: 'single'; one: One } | { kind: 'batch'; items: One[] };

class GeneratorBug extends Error {}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isValidId = (v: unknown): v is Id => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));

/** Deepest array/object nesting of JSON text (strings skipped), the way a tokenizer sees it. */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** What the server sees: the text as UTF-8 on the wire, decoded again. */
const onTheWire = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

/** An object's own `id` when it is a valid id, else null: what a refusal must echo. */
const readableId = (v: unknown): Id => (isPlainObject(v) && hasOwn(v, 'id') && isValidId(v['id']) ? v['id'] : null);

/** Deepest nesting of a parsed value (without recursion: it may be thousands deep). */
function valueDepth(value: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    max = Math.max(max, d + 1);
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/**
 * Too deep to parse (PROTOCOL.md §12 has the server refuse it): still answered with the ids it
 * holds, and a notification not at all. A request object gets one invalid_request with its own id; a batch gets an array where
 * each element too deep (the batch's own level counted) is refused with its id and the others are
 * answered as usual. Text that is not JSON at all has no id to read.
 */
function expectationForDeep(seen: string): Expectation {
  const tooDeep = (id: Id): One => ({ kind: 'error', type: 'invalid_request', id });
  // An object without an `id` member is a notification (PROTOCOL.md §2): never answered, too deep
  // or not, alone or in a batch.
  const notification = (v: unknown) => isPlainObject(v) && !hasOwn(v, 'id');
  let payload: unknown;
  try {
    payload = JSON.parse(seen);
  } catch {
    return { kind: 'single', one: tooDeep(null) };
  }
  if (!Array.isArray(payload)) return notification(payload) ? { kind: 'none' } : { kind: 'single', one: tooDeep(readableId(payload)) };
  if (payload.length > MAX_BATCH) return { kind: 'single', one: tooDeep(null) };
  let admitted = 0;
  const items: One[] = [];
  for (const element of payload) {
    // The generators never hide nesting behind a duplicate key, so the parsed depth is the wire's.
    if (valueDepth(element) + 1 > MAX_NESTING_DEPTH) {
      if (!notification(element)) items.push(tooDeep(readableId(element)));
      continue;
    }
    const passes = passesEnvelope(element);
    const one = expectOne(element, admitted);
    if (passes) admitted++;
    if (one) items.push(one);
  }
  return items.length === 0 ? { kind: 'none' } : { kind: 'batch', items };
}

function expectationFor(text: string): Expectation {
  const seen = onTheWire(text);
  if (nestingDepth(seen) > MAX_NESTING_DEPTH) return expectationForDeep(seen);
  let payload: unknown;
  try {
    payload = JSON.parse(seen);
  } catch {
    return { kind: 'single', one: { kind: 'error', type: 'parse_error', id: null } };
  }
  if (!Array.isArray(payload)) {
    const one = expectOne(payload, 0);
    return one === undefined ? { kind: 'none' } : { kind: 'single', one };
  }
  if (payload.length === 0 || payload.length > MAX_BATCH) {
    return { kind: 'single', one: { kind: 'error', type: 'invalid_request', id: null } };
  }
  let admitted = 0;
  const items: One[] = [];
  for (const element of payload) {
    const passes = passesEnvelope(element);
    const one = expectOne(element, admitted);
    if (passes) admitted++;
    if (one) items.push(one);
  }
  return items.length === 0 ? { kind: 'none' } : { kind: 'batch', items };
}

function passesEnvelope(element: unknown): boolean {
  if (!isPlainObject(element)) return false;
  if (hasOwn(element, 'id') && !isValidId(element['id'])) return false;
  if (element['jsonrpc'] !== '2.0' || typeof element['method'] !== 'string') return false;
  const params = element['params'];
  return params === undefined || (params !== null && typeof params === 'object');
}

/** JSON-RPC 2.0 §4–5 with PROTOCOL.md §3 words; undefined: no reply (a notification). */
function expectOne(element: unknown, admitted: number): One | undefined {
  const invalid = (id: Id): One => ({ kind: 'error', type: 'invalid_request', id });
  if (!isPlainObject(element)) return invalid(null);
  const hasId = hasOwn(element, 'id');
  if (hasId && !isValidId(element['id'])) return invalid(null);
  const id: Id = hasId ? (element['id'] as Id) : null;
  // An envelope the server cannot read is answered even without an id.
  if (element['jsonrpc'] !== '2.0' || typeof element['method'] !== 'string') return invalid(id);
  const params = element['params'];
  if (params !== undefined && (params === null || typeof params !== 'object')) return invalid(id);
  const reply = (one: One): One | undefined => (hasId ? one : undefined);
  const method = methodsByName.get(element['method']);
  if (!method) {
    return reply({ kind: 'error', type: 'method_not_found', id, admitted });
  }
  if (Array.isArray(params)) return reply({ kind: 'error', type: 'invalid_params', id, admitted });
  const given = (params ?? {}) as Record<string, unknown>;
  const bad = Object.keys(given).filter((key) =>
    !method.names.has(key) || violates(method.params.find((p) => p.name === key)!, given[key])
  );
  const missing = method.params.filter((p) => p.required && !hasOwn(given, p.name));
  if (bad.length > 0 || missing.length > 0) {
    const named = bad.filter((k) => method.params.some((p) => p.name === k && !p.inline));
    return reply({ kind: 'error', type: 'invalid_params', id, admitted, params: { bad: named } });
  }
  if (BROWSER_FREE.has(method.name) && Object.keys(given).length === 0) return reply({ kind: 'result', id, admitted });
  // The fuzz server has no session at all: an explicit session id is unknown, and that is
  // answered before any browser work (§3 session_not_found).
  if (method.name === 'session.close' && typeof given['session_id'] === 'string') {
    return reply({ kind: 'error', type: 'session_not_found', id, admitted });
  }
  // Valid params for a method that may need the browser: the generators must never make one.
  throw new GeneratorBug(`generated a possibly valid call to ${method.name}: ${JSON.stringify(given).slice(0, 200)}`);
}

/** True when `value` is certainly refused by the param's schema (the checks the generators use). */
function violates(param: ParamModel, value: unknown): boolean {
  if (param.type === undefined) return false;
  if (!hasType(value, param.type)) return true;
  const s = param.schema;
  if (Array.isArray(s['enum']) && !(s['enum'] as unknown[]).includes(value)) return true;
  if (typeof value === 'string') {
    if (typeof s['maxLength'] === 'number' && [...value].length > s['maxLength']) return true;
    if (typeof s['minLength'] === 'number' && [...value].length < s['minLength']) return true;
    if (typeof s['pattern'] === 'string' && !new RegExp(s['pattern'], 'u').test(value)) return true;
  }
  if (typeof value === 'number') {
    if (typeof s['maximum'] === 'number' && value > s['maximum']) return true;
    if (typeof s['minimum'] === 'number' && value < s['minimum']) return true;
  }
  if (Array.isArray(value)) {
    const items = s['items'] as JsonSchema | undefined;
    if (Array.isArray(items?.['enum']) && value.some((item) => !(items['enum'] as unknown[]).includes(item))) return true;
    if (typeof s['maxItems'] === 'number' && value.length > s['maxItems']) return true;
    if (typeof s['minItems'] === 'number' && value.length < s['minItems']) return true;
  }
  if (isPlainObject(value) && Array.isArray(s['required'])) {
    if ((s['required'] as string[]).some((k) => !hasOwn(value, k))) return true;
  }
  return false;
}

function hasType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isPlainObject(value);
  }
}

// ---- checking replies ---------------------------------------------------------------------------

interface ErrorReply {
  jsonrpc: string;
  id: Id;
  error: { code: number; message: string; data?: Record<string, unknown> };
}

function checkFrames(text: string, expectation: Expectation, frames: string[]): void {
  const where = `for ${describeText(text)}`;
  if (expectation.kind === 'none') {
    assert.is(frames.length, 0, `no reply expected ${where}, got ${frames.map((f) => f.slice(0, 200)).join(' | ')}`);
    return;
  }
  assert.is(
    frames.length,
    1,
    `exactly one reply frame expected ${where}, got ${frames.length}: ${frames.map((f) => f.slice(0, 200)).join(' | ')}`,
  );
  const reply = JSON.parse(frames[0]!) as unknown;
  if (expectation.kind === 'single') {
    assert.ok(isPlainObject(reply), `a single reply object ${where}: ${frames[0]!.slice(0, 300)}`);
    checkOne(reply, expectation.one, where);
    return;
  }
  assert.ok(Array.isArray(reply), `a batch gets an array ${where}: ${frames[0]!.slice(0, 300)}`);
  const replies = reply as unknown[];
  // Elements past the per-connection limit of requests in flight may be refused with data.limit
  // instead, and a refused notification gets no reply either way.
  const items = expectation.items;
  let i = 0;
  for (const element of replies) {
    assert.ok(i < items.length, `more replies than expected ${where}: ${frames[0]!.slice(0, 300)}`);
    checkOne(element, items[i]!, `${where}, reply ${i}`);
    i++;
  }
  assert.is(replies.length, items.length, `one reply per answered element ${where}`);
}

function checkOne(reply: unknown, expected: One, where: string): void {
  assert.ok(isPlainObject(reply), `a reply is an object ${where}`);
  const r = reply as Record<string, unknown>;
  assert.is(r['jsonrpc'], '2.0', `jsonrpc ${where}`);
  assert.ok(isValidId(r['id']), `a reply's id is a string, a number or null ${where}`);
  if (hasOwn(r, 'error')) {
    assert.equal(Object.keys(r).sort(), ['error', 'id', 'jsonrpc'], `error reply members ${where}`);
    const error = r['error'] as ErrorReply['error'];
    assert.ok(isPlainObject(error), `error is an object ${where}`);
    assert.ok(Number.isInteger(error.code), `error.code is an integer ${where}`);
    assert.type(error.message, 'string', `error.message ${where}`);
    assert.ok(isPlainObject(error.data), `error.data ${where}`);
    const word = error.data!['error_type'];
    assert.ok(typeof word === 'string' && hasOwn(ERROR_CODES, word), `data.error_type ${JSON.stringify(word)} is a word of §3 ${where}`);
    assert.is(error.code, ERROR_CODES[word as string], `code matches the §3 table for ${String(word)} ${where}`);
    assert.is.not(word, 'internal_error', `never internal_error ${where}: ${JSON.stringify(error).slice(0, 500)}`);
    const size = JSON.stringify(reply).length;
    assert.ok(
      size <= MAX_ERROR_REPLY_BYTES + JSON.stringify(r['id']).length,
      `an error reply stays small (${size} bytes) ${where}: ${JSON.stringify(error).slice(0, 300)}`,
    );
    const limited = error.data!['limit'] !== undefined && word === 'invalid_request';
    if (limited && expected.admitted !== undefined && pendingLimit !== undefined && expected.admitted >= pendingLimit) {
      assert.equal(r['id'], expected.id, `id echoed ${where}`);
      return;
    }
    if (expected.kind !== 'error') {
      assert.unreachable(`expected a result ${where}, got ${JSON.stringify(error).slice(0, 300)}`);
      return;
    }
    assert.is(word, expected.type, `error_type ${where}: ${JSON.stringify(error).slice(0, 300)}`);
    assert.equal(r['id'], expected.id, `id echoed, or null when unreadable ${where}`);
    if (word === 'invalid_params') checkIssues(error.data!, expected, where);
    if (word === 'method_not_found' && error.data!['method'] !== undefined) {
      assert.ok(String(error.data!['method']).length <= 256, `data.method is bounded ${where}`);
    }
    return;
  }
  assert.equal(Object.keys(r).sort(), ['id', 'jsonrpc', 'result'], `result reply members ${where}`);
  assert.is(expected.kind, 'result', `expected an error ${where}, got a result`);
  assert.equal(r['id'], expected.id, `id echoed ${where}`);
}

function checkIssues(data: Record<string, unknown>, expected: One, where: string): void {
  const issues = data['issues'];
  assert.ok(Array.isArray(issues) && issues.length > 0 && issues.length <= 50, `data.issues lists 1–50 issues ${where}`);
  for (const issue of issues as Array<Record<string, unknown>>) {
    assert.type(issue['path'], 'string', `issue.path ${where}`);
    assert.type(issue['message'], 'string', `issue.message ${where}`);
  }
  if (expected.kind !== 'error' || !expected.params || (issues as unknown[]).length >= 50) return;
  const paths = (issues as Array<{ path: string }>).map((issue) => issue.path);
  for (const name of expected.params.bad) {
    assert.ok(
      paths.some((path) => path === name || path.startsWith(`${name}.`)),
      `an issue names the bad param ${JSON.stringify(name)} ${where}: ${JSON.stringify(issues).slice(0, 400)}`,
    );
  }
}

/** Within the inbound limit: bigger messages close the socket (tested on their own). */
const fits = (text: string) => Buffer.byteLength(text) <= MAX_MESSAGE_BYTES;

function describeText(text: string): string {
  return text.length > 300 ? `${JSON.stringify(text.slice(0, 200))}… (${text.length} chars)` : JSON.stringify(text);
}

async function runCase(text: string, w: Wire = wire, expectation = expectationFor(text)): Promise<void> {
  const frames = await exchange(w, text, expectation.kind === 'none' ? 0 : 1);
  checkFrames(text, expectation, frames);
}

/** fc.assert with the run's seed; a failure names the seed and how to replay it. */
async function check<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), { seed: SEED, numRuns, includeErrorInReport: true });
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(`${name} failed with seed ${SEED} (replay: PAGEWIRE_FUZZ_SEED=${SEED} PAGEWIRE_FUZZ_RUNS=${RUNS})\n${message}`);
  }
}

// ---- generators ------------------------------------------------------------------------------

type Entry = readonly [string, unknown];

const anyString = fc.string({ unit: 'binary', maxLength: 40 });
const anyJson = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>;
const specials: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0.5,
  2 ** 53,
  -(2 ** 53),
  1e308,
  '',
  ' ',
  '0',
  'true',
  'null',
  '@1',
  '__proto__',
  [],
  [null],
  [[[]]],
  {},
  { a: 1 },
  JSON.parse('{"__proto__":{"polluted":true}}') as Json,
  'x'.repeat(300),
];
const looseValue: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: anyJson, weight: 4 },
  { arbitrary: fc.constantFrom(...specials), weight: 2 },
  { arbitrary: anyString, weight: 1 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
);

function wrongType(type: JsonType): fc.Arbitrary<Json> {
  return looseValue.filter((v) => !hasType(v, type));
}

/** Values the param's schema refuses: a wrong JSON type, or the right type out of range. */
function badValue(param: ParamModel): fc.Arbitrary<Json> {
  const s = param.schema;
  const options: Array<fc.Arbitrary<Json>> = [wrongType(param.type!)];
  if (param.type === 'string') {
    if (Array.isArray(s['enum'])) options.push(anyString.filter((x) => !(s['enum'] as unknown[]).includes(x)));
    if (typeof s['maxLength'] === 'number') {
      options.push(fc.integer({ min: 1, max: 200 }).map((n) => 'y'.repeat((s['maxLength'] as number) + n)));
    }
    if (typeof s['minLength'] === 'number' && s['minLength'] > 0) options.push(fc.constant(''));
    if (typeof s['pattern'] === 'string') {
      const re = new RegExp(s['pattern'], 'u');
      options.push(anyString.filter((x) => !re.test(x)));
    }
  }
  if (param.type === 'integer' || param.type === 'number') {
    if (typeof s['maximum'] === 'number') options.push(fc.integer({ min: 1, max: 1000 }).map((n) => (s['maximum'] as number) + n));
    if (typeof s['minimum'] === 'number') options.push(fc.integer({ min: 1, max: 1000 }).map((n) => (s['minimum'] as number) - n));
  }
  if (param.type === 'integer') options.push(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Number.isInteger(x)));
  if (param.type === 'array' && typeof s['minItems'] === 'number' && s['minItems'] > 0) options.push(fc.constant([]));
  if (param.type === 'object' && Array.isArray(s['required']) && s['required'].length > 0) options.push(fc.constant({}));
  return fc.oneof(...options).filter((v) => violates(param, v));
}

const idArb: fc.Arbitrary<Id> = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  anyString,
  fc.constant(null),
  fc.constantFrom(...PROTO_NAMES),
);

function objectText(entries: readonly Entry[]): string {
  // By hand, so that a `__proto__` key is a real member of the JSON text.
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

function requestText(method: string, params: string | undefined, id: Id | undefined): string {
  const parts = ['"jsonrpc":"2.0"'];
  if (id !== undefined) parts.push(`"id":${JSON.stringify(id)}`);
  parts.push(`"method":${JSON.stringify(method)}`);
  if (params !== undefined) parts.push(`"params":${params}`);
  return `{${parts.join(',')}}`;
}

/** Params for `m` that its schema refuses: bad values, unknown fields, or both. */
function badParams(m: MethodModel): fc.Arbitrary<string> {
  const typed = m.params.filter((p) => p.type !== undefined);
  const untyped = m.params.filter((p) => p.type === undefined);
  const bad: fc.Arbitrary<Entry[]> = typed.length === 0
    ? fc.constant([])
    : fc.subarray(typed).chain((ps) => fc.tuple(...ps.map((p) => badValue(p).map((v): Entry => [p.name, v]))));
  const free: fc.Arbitrary<Entry[]> = untyped.length === 0
    ? fc.constant([])
    : fc.subarray(untyped, { maxLength: Math.min(3, untyped.length) }).chain((ps) =>
      fc.tuple(...ps.map((p) => looseValue.map((v): Entry => [p.name, v])))
    );
  const unknownKey = fc.oneof(fc.constantFrom(...PROTO_NAMES), anyString).filter((k) => !m.names.has(k));
  const unknown = fc.uniqueArray(fc.tuple(unknownKey, looseValue), { maxLength: 3, selector: ([k]) => k });
  return fc
    .tuple(bad, free, unknown)
    .filter(([b, , u]) => b.length + u.length > 0)
    .chain(([b, f, u]) => fc.shuffledSubarray([...b, ...f, ...u] as Entry[], { minLength: b.length + f.length + u.length }))
    .map((entries) => objectText(entries));
}

let methodArb: fc.Arbitrary<MethodModel>;

/** A call to a real method with refused params, as a request or (now and then) a notification. */
function badCall(): fc.Arbitrary<string> {
  return fc
    .tuple(methodArb.chain((m) => fc.tuple(fc.constant(m), badParams(m))), fc.option(idArb, { freq: 6, nil: undefined }))
    .map(([[m, params], id]) => requestText(m.name, params, id));
}

/**
 * Browser-free calls that succeed, with or without an id, and odd but legal envelopes. Batches
 * leave rpc.discover out: it costs tens of milliseconds a call.
 */
const goodCallOf = (names: string[]): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.constantFrom(...names),
      fc.option(idArb, { freq: 4, nil: undefined }),
      fc.constantFrom<string | undefined>(undefined, '{}'),
      fc.constantFrom('', ',"extra":1', ',"__proto__":{"params":{"x":1}}', ',"constructor":null'),
    )
    .map(([method, id, params, extra]) => requestText(method, params, id).replace(/}$/, `${extra}}`));
const goodCall = goodCallOf(['server.info', 'session.list', 'server.info', 'session.list', 'rpc.discover']);
const cheapGoodCall = goodCallOf(['server.info', 'session.list']);

/** Envelopes that JSON-RPC refuses, or that name no method. */
const junkEnvelope: fc.Arbitrary<string> = fc.oneof(
  // Members with the wrong types or missing.
  fc
    .record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), fc.constantFrom('1.0', '2', 2, 2.0, null, '', ' 2.0')),
        id: fc.oneof(idArb, fc.constantFrom<Json>(true, false, [], {}, [1], { id: 1 })),
        method: fc.oneof(fc.constantFrom(...PROTO_NAMES), anyString, fc.constantFrom<Json>(1, null, true, [], {}, ['server.info'])),
        params: fc.oneof(fc.constantFrom<Json>(null, 1, 'x', true, 0, '', [], [1, 2], {}), anyJson),
      },
      { requiredKeys: [] },
    )
    .map((o) => objectText(Object.entries(o))),
  // Prototype tricks in the envelope itself.
  fc.constantFrom(
    '{"__proto__":{"jsonrpc":"2.0","method":"server.info"},"id":1}',
    '{"jsonrpc":"2.0","id":2,"__proto__":{"method":"server.info"}}',
    '{"jsonrpc":"2.0","id":3,"method":"__proto__"}',
    '{"jsonrpc":"2.0","id":4,"method":"constructor","params":{}}',
    '{"jsonrpc":"2.0","id":5,"method":"hasOwnProperty","params":["server.info"]}',
    '{"jsonrpc":"2.0","id":6,"method":"__defineGetter__","params":{"x":1}}',
    '{"jsonrpc":"2.0","id":7,"method":"server.info.constructor"}',
    '{"jsonrpc":"2.0","id":1e400,"method":"server.info"}',
    '{"jsonrpc":"2.0","id":-1e400,"method":"server.info"}',
    '{"jsonrpc":"2.0","id":12345678901234567890123,"method":"nope"}',
    '{"jsonrpc":"2.0","id":"a","method":"server.info","params":null}',
    '{"jsonrpc":"2.0","method":"server.info","params":1}',
    '{"jsonrpc":"2.0","id":"dup","id":"dup2","method":"nope"}',
  ),
);

/** Any element a junk batch may hold. */
const batchElement: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: cheapGoodCall, weight: 3 },
  {
    arbitrary: fc.constantFrom(...[null, 0, 1, -1, 1.5, true, false, '', 'x', [], [1], {}, [[]]].map((v) => JSON.stringify(v))),
    weight: 3,
  },
  { arbitrary: junkEnvelope, weight: 4 },
  { arbitrary: fc.constant(null).chain(() => badCall()), weight: 4 },
  { arbitrary: anyJson.map((v) => JSON.stringify(v)), weight: 1 },
);

/** A valid request mutated a few characters: mostly broken JSON, sometimes JSON of another shape. */
const mutated: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom<string>(
      '{"jsonrpc":"2.0","id":1,"method":"server.info"}',
      '{"jsonrpc":"2.0","id":"x","method":"session.close","params":{"session_id":"s_1"}}',
      '[{"jsonrpc":"2.0","id":1,"method":"server.info"},{"jsonrpc":"2.0","method":"session.list"}]',
    ),
    fc.array(
      fc.tuple(fc.nat(), fc.constantFrom('delete', 'insert', 'truncate'), fc.constantFrom(...'{}[]",:\\0 a\u0000\u2028'.split(''))),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  )
  .map(([base, edits]) => {
    let text: string = base;
    for (const [at, op, ch] of edits) {
      const i = at % (text.length + 1);
      if (op === 'delete') text = text.slice(0, i) + text.slice(i + 1);
      else if (op === 'insert') text = text.slice(0, i) + ch + text.slice(i);
      else text = text.slice(0, i);
    }
    return text;
  });

const jsonish = fc.string({ unit: fc.constantFrom(...'{}[]",:0123456789.-+eE \\/trufalsn'.split('')), maxLength: 80 });

const randomText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ maxLength: 300 }),
  jsonish,
  fc.json({ maxDepth: 4 }),
  mutated,
);

// ---- memory --------------------------------------------------------------------------------------

type GcFn = () => void;

async function findGc(): Promise<GcFn | undefined> {
  const existing = (globalThis as { gc?: GcFn }).gc;
  if (typeof existing === 'function') return existing;
  try {
    const v8 = await import('node:v8');
    const vm = await import('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined') as GcFn | undefined;
    if (typeof gc === 'function') return gc;
  } catch {
    // no way to force a collection on this runtime: a generous bound instead
  }
  return undefined;
}

async function settledHeap(gc: GcFn | undefined): Promise<number> {
  let low = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc?.();
    low = Math.min(low, process.memoryUsage().heapUsed);
  }
  return low;
}

// ---- the suite -----------------------------------------------------------------------------------

const s = suite('rpc fuzz');
s.before(async () => {
  prototypeNamesBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  const token = `fuzz-token-${crypto.randomUUID()}`;
  const config = parseConfig(['--port', '0', '--token', token], {});
  const log = createLogger({ level: 'warn', sink: (line) => logLines.push(line), redact: [token] });
  const runtime = IS_DENO
    ? `deno ${(globalThis as unknown as { Deno: { version: { deno: string } } }).Deno.version.deno}`
    : `node ${process.version}`;
  server = await startServer(config, { runtime, log });
  onTeardown(() => server.close());
  url = `${server.url}?token=${encodeURIComponent(token)}`;
  wire = await Wire.open(url);

  const probe = await Wire.open(url);
  probe.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rpc.discover' }));
  probe.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'server.info' }));
  const replies = [JSON.parse(await probe.next(Date.now() + 10_000)), JSON.parse(await probe.next(Date.now() + 10_000))] as Array<{
    id: number;
    result: Record<string, unknown>;
  }>;
  probe.close();
  const doc = replies.find((r) => r.id === 1)!.result as {
    methods: Array<{ name: string; params: Array<{ name: string; required?: boolean; schema: JsonSchema }> }>;
  };
  const info = replies.find((r) => r.id === 2)!.result as { limits?: Record<string, number> };
  pendingLimit = info.limits?.['pending_requests_per_connection'];
  methods = doc.methods.map((m) => modelOf(m));
  methodsByName = new Map(methods.map((m) => [m.name, m]));
  methodArb = fc.constantFrom(...methods);
});

// A failed case may have cost the main socket; the next test starts with a fresh one.
s.before.each(async () => {
  if (wire?.closedWith) wire = await Wire.open(url);
});

s.after(() => {
  wire?.close();
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUnhandled);
});

function modelOf(m: { name: string; params: Array<{ name: string; required?: boolean; schema: JsonSchema }> }): MethodModel {
  // act's inline action fields are `{}` at the top level; their types come from `actions` items.
  const actionsItems = (m.params.find((p) => p.name === 'actions')?.schema['items'] as JsonSchema | undefined)?.['oneOf'] as
    | JsonSchema[]
    | undefined;
  const inlineType = (name: string): JsonType | undefined => {
    const types = new Set<JsonType | undefined>();
    for (const member of actionsItems ?? []) {
      const prop = (member['properties'] as Record<string, JsonSchema> | undefined)?.[name];
      if (prop) types.add(typeOfSchema(prop));
    }
    return types.size === 1 ? [...types][0] : undefined;
  };
  const params = m.params.map((p) => {
    const direct = typeOfSchema(p.schema);
    const type = direct ?? (Object.keys(p.schema).length === 0 ? inlineType(p.name) : undefined);
    // Constraints of an inline field differ per action; only its type is certain.
    const schema = direct ? p.schema : {};
    return { name: p.name, required: p.required === true, schema, type, inline: direct === undefined };
  });
  return { name: m.name, params, names: new Set(params.map((p) => p.name)) };
}

function typeOfSchema(schema: JsonSchema): JsonType | undefined {
  const t = schema['type'];
  if (typeof t === 'string' && ['string', 'integer', 'number', 'boolean', 'array', 'object'].includes(t)) return t as JsonType;
  const members = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (Array.isArray(members) && members.length > 0) {
    const types = new Set(members.map(typeOfSchema));
    if (types.size === 1 && !types.has(undefined)) return [...types][0];
  }
  return undefined;
}

s('discovery: every method and its params are known to the fuzzer', () => {
  assert.ok(methods.length >= 15, `rpc.discover lists the methods (${methods.length})`);
  for (const name of ['session.create', 'tabs.new', 'observe', 'act', 'events.subscribe', 'server.info']) {
    assert.ok(methodsByName.has(name), name);
  }
  const act = methodsByName.get('act')!;
  assert.is(act.params.find((p) => p.name === 'ref')?.type, 'string', 'inline act fields get their type from `actions`');
});

s('random and malformed text: parse_error for non-JSON, the right word for any JSON, and the socket stays usable', async () => {
  await check('random text', randomText, (text) => runCase(text), runs(DEFAULT_RUNS));
});

s('malformed envelopes and prototype tricks: invalid_request or method_not_found, id echoed or null', async () => {
  await check('envelopes', fc.oneof(junkEnvelope, goodCall), (text) => runCase(text), runs(DEFAULT_RUNS));
});

s('every param of every method with wrong types and unknown fields: invalid_params naming the param', async () => {
  // First a sweep that does not depend on the seed: each typed param, each JSON type it is not.
  const representatives: Record<JsonType, Json> = { string: 'x', integer: 7, number: 0.5, boolean: true, array: [1], object: { k: 1 } };
  const texts: string[] = [];
  let id = 0;
  for (const m of methods) {
    for (const p of m.params) {
      if (p.type === undefined) continue;
      for (const [type, value] of Object.entries(representatives) as Array<[JsonType, Json]>) {
        if (hasType(value, p.type) || (p.type === 'number' && type === 'integer')) continue;
        texts.push(requestText(m.name, objectText([[p.name, value]]), `sweep-${++id}`));
      }
      texts.push(requestText(m.name, objectText([[p.name, null]]), `sweep-${++id}`));
    }
    for (const key of PROTO_NAMES) texts.push(requestText(m.name, objectText([[key, {}]]), `proto-${++id}`));
    texts.push(requestText(m.name, '[]', `positional-${++id}`));
  }
  for (const text of texts) await runCase(text);
  assert.ok(texts.length > 200, `swept ${texts.length} calls`);
  await check('bad params', badCall(), (text) => runCase(text), runs(DEFAULT_RUNS));
});

s('prototype names as methods and as keys never reach Object.prototype', async () => {
  let id = 0;
  for (const name of PROTO_NAMES) {
    await runCase(requestText(name, undefined, ++id));
    await runCase(requestText(name, '{}', ++id));
    await runCase(requestText(`${name}.x`, '{}', ++id));
    await runCase(requestText('server.info', objectText([[name, { polluted: true }]]), ++id));
    await runCase(`[${requestText(name, '{}', ++id)},${requestText('server.info', undefined, ++id)}]`);
  }
  await runCase('{"jsonrpc":"2.0","id":"p","method":"tabs.list","params":{"__proto__":{"session_id":"s_x"}}}');
  await runCase('{"jsonrpc":"2.0","id":"q","method":"server.info","params":{"constructor":{"prototype":{"polluted":true}}}}');
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeNamesBefore, 'Object.prototype unchanged');
  assert.is(({} as Record<string, unknown>)['polluted'], undefined);
});

s('batches of junk (up to 100 elements): one reply per answered element, in order; beyond 100: one invalid_request', async () => {
  const batch = fc
    .array(batchElement, { minLength: 1, maxLength: MAX_BATCH })
    .map((elements) => `[${elements.join(',')}]`)
    .filter(fits);
  await check('batches', batch, (text) => runCase(text), runs(80));
  const tooLong = fc
    .tuple(fc.integer({ min: MAX_BATCH + 1, max: 400 }), batchElement.filter((e) => e.length < 2_000))
    .map(([n, element]) => `[${Array.from({ length: n }, () => element).join(',')}]`)
    .filter(fits);
  await check('long batches', tooLong, (text) => runCase(text), runs(20));
  // The edges, whatever the seed: empty, exactly 100, 101, and only notifications.
  const info = (i: number) => requestText('server.info', undefined, i);
  for (
    const text of [
      '[]',
      `[${Array.from({ length: MAX_BATCH }, (_, i) => info(i)).join(',')}]`,
      `[${Array.from({ length: MAX_BATCH + 1 }, (_, i) => info(i)).join(',')}]`,
      `[${Array.from({ length: MAX_BATCH }, () => requestText('server.info', undefined, undefined)).join(',')}]`,
      `[${Array.from({ length: MAX_BATCH }, () => 'null').join(',')}]`,
      '[[]]',
      '[{}]',
    ]
  ) {
    await runCase(text);
  }
});

s('deep nesting (10,000 levels and up to the size limit) is answered quickly, never crashes', async () => {
  for (const depth of [MAX_NESTING_DEPTH, MAX_NESTING_DEPTH + 1, 10_000, 100_000, 500_000]) {
    const arrays = '['.repeat(depth) + ']'.repeat(depth);
    const objectDepth = Math.min(depth, 170_000);
    const objects = '{"a":'.repeat(objectDepth) + '1' + '}'.repeat(objectDepth);
    for (
      const text of [
        arrays,
        objects,
        `[${arrays}]`,
        requestText('server.info', `{"x":${arrays}}`, 1),
        requestText('tabs.list', `{"session_id":${arrays}}`, 2),
        requestText('act', `{"state_id":"st","actions":${arrays}}`, 3),
        `{"jsonrpc":"2.0","id":${arrays},"method":"server.info"}`,
        `{"jsonrpc":"2.0","id":4,"method":"server.info","params":${arrays}}`,
        `{"jsonrpc":"2.0","method":"server.info","params":${objects},"id":"after"}`,
        `[${requestText('server.info', undefined, 5)},${requestText('server.info', `{"x":${arrays}}`, 6)},${
          requestText('session.list', undefined, 7)
        }]`,
        '['.repeat(depth), // unterminated
        `{"jsonrpc":"2.0","id":8,"method":"server.info","params":${'['.repeat(depth)}`, // unterminated, with an id
      ]
    ) {
      if (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) continue;
      // The oracle parses the text: that is not the server's cost.
      const expectation = expectationFor(text);
      // CPU time of this process (client and server), so a busy machine does not fail the bound.
      const started = process.cpuUsage();
      await runCase(text, wire, expectation);
      const { user, system } = process.cpuUsage(started);
      const took = Math.round((user + system) / 1000);
      assert.ok(took < 1_000, `a ${depth}-deep message cost ${took} ms of CPU (the event loop is shared by every client)`);
    }
  }
});

/** Nesting from just under the limit to well over it, as arrays or objects. */
const deepValue: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: MAX_NESTING_DEPTH - 4, max: 3 * MAX_NESTING_DEPTH }), fc.boolean())
  .map(([n, arrays]) => (arrays ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n)));

/**
 * A request with a deep part, its own id (maybe spelled with escapes, maybe absent) anywhere
 * among its members, decoy ids inside params and strings, and shallow duplicates of `id`.
 */
const deepRequest: fc.Arbitrary<string> = fc
  .record({
    id: fc.option(idArb, { freq: 5, nil: undefined }),
    key: fc.constantFrom('"id"', '"id"', '"\\u0069d"', '"i\\u0064"'),
    method: fc.constantFrom('server.info', 'session.list', 'nope', 'act', '"id":1'),
    deep: deepValue,
    at: fc.nat(),
    duplicate: fc.option(fc.tuple(fc.boolean(), fc.oneof(idArb, fc.constantFrom<Json>(true, [], {}, 1e400 as number))), { nil: undefined }),
  })
  .map(({ id, key, method, deep, at, duplicate }) => {
    const members = ['"jsonrpc":"2.0"', `"method":${JSON.stringify(method)}`, `"params":{"id":"decoy","x":${deep}}`];
    if (id !== undefined) members.splice(at % (members.length + 1), 0, `${key}:${JSON.stringify(id)}`);
    if (duplicate !== undefined) {
      const [first, value] = duplicate;
      const text = `"id":${typeof value === 'number' && !Number.isFinite(value) ? '1e400' : JSON.stringify(value)}`;
      if (first) members.unshift(text);
      else members.push(text);
    }
    return `{${members.join(',')}}`;
  });

s('too deep to parse: each request answered with its own id, a batch with an array', async () => {
  await check('deep requests', deepRequest, (text) => runCase(text), runs(DEFAULT_RUNS));
  const batch = fc
    .array(fc.oneof({ arbitrary: batchElement, weight: 2 }, { arbitrary: deepRequest, weight: 1 }), { minLength: 1, maxLength: 30 })
    .map((elements) => `[${elements.join(',')}]`)
    .filter(fits);
  await check('deep batches', batch, (text) => runCase(text), runs(80));
});

s('huge strings (up to just under 1 MiB) in every position: bounded error replies, ids echoed', async () => {
  // Each template takes the raw huge string and escapes it where it goes.
  const templates: Array<(f: string) => string> = [
    (f) => requestText('server.info', undefined, f), // an id: echoed whole
    (f) => requestText(f, '{}', 1), // a method name
    (f) => requestText('tabs.list', objectText([['session_id', f]]), 2), // too long
    (f) => requestText('server.info', objectText([[f, 1]]), 3), // an unknown key
    (f) => requestText('server.info', objectText([...Array.from({ length: 200 }, (_, i): Entry => [`${f.slice(0, 5000)}${i}`, 1])]), 30), // many
    (f) => requestText('act', objectText([['state_id', 'x'], ['action', f]]), 4), // not an action
    (f) => requestText('events.subscribe', objectText([['kinds', [f]]]), 5), // not a kind
    (f) => requestText('observe', objectText([['root_ref', f]]), 6), // not a ref
    (f) => `[${requestText('server.info', objectText([[f, 1]]), 7)},${requestText('server.info', undefined, 8)}]`,
    (f) => `{"jsonrpc":"2.0","id":9,"method":"server.info","params":{"s":"${JSON.stringify(f).slice(1, -1)}`, // unterminated
    (f) => JSON.stringify(f), // a bare string
  ];
  const arb = fc.tuple(
    fc.integer({ min: 0, max: templates.length - 1 }),
    fc.integer({ min: 64 * 1024, max: MAX_MESSAGE_BYTES }),
    fc.constantFrom('a', '\u00e9', '\u{1F600}', '"', '\\', '\u0000', '\u2028'),
  );
  const build = ([which, size, unit]: [number, number, string]): string => {
    const make = templates[which]!;
    const overhead = Buffer.byteLength(make(''));
    const perUnit = (Buffer.byteLength(make(unit.repeat(100))) - overhead) / 100;
    let count = Math.max(0, Math.floor((size - overhead) / Math.max(perUnit, 1)));
    let text = make(unit.repeat(count));
    while (Buffer.byteLength(text) > MAX_MESSAGE_BYTES) {
      count = Math.floor(count * 0.99);
      text = make(unit.repeat(count));
    }
    return text;
  };
  await check('huge strings', arb, (value) => runCase(build(value)), runs(25));
});

s('the 1 MiB limit: exactly 1 MiB is answered; one byte more closes that socket with 1009 and nothing else', async () => {
  const w = await Wire.open(url);
  const base = requestText('server.info', objectText([['pad', '']]), 'edge');
  const exact = base.replace('"pad":""', `"pad":"${'p'.repeat(MAX_MESSAGE_BYTES - Buffer.byteLength(base))}"`);
  assert.is(Buffer.byteLength(exact), MAX_MESSAGE_BYTES);
  await runCase(exact, w);
  const over = exact.replace('"pad":"', '"pad":"p');
  w.send(over);
  assert.is((await w.closed).code, 1009);
  await runCase(requestText('server.info', undefined, 'still-there'));
});

s('frames that are not JSON text: binary closes with 1003, invalid UTF-8 with 1007; other sockets unaffected', async () => {
  const binary = await Wire.open(url);
  binary.send(Buffer.from(requestText('server.info', undefined, 1)), { binary: true });
  assert.is((await binary.closed).code, 1003);
  const badUtf8 = await Wire.open(url);
  badUtf8.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
  assert.is((await badUtf8.closed).code, 1007);
  await runCase(requestText('server.info', undefined, 'after-bad-frames'));
});

s('memory stays flat over many junk messages and connections', async () => {
  const gc = await findGc();
  const mixed = fc.oneof(
    { arbitrary: randomText, weight: 3 },
    { arbitrary: junkEnvelope, weight: 2 },
    { arbitrary: fc.constant(null).chain(() => badCall()), weight: 3 },
    { arbitrary: fc.array(batchElement, { minLength: 1, maxLength: 40 }).map((e) => `[${e.join(',')}]`).filter(fits), weight: 1 },
  );
  const texts = fc.sample(mixed, { numRuns: runs(500), seed: SEED });
  const big = requestText('server.info', objectText([['k'.repeat(200_000), 'v'.repeat(600_000)]]), 'big');
  const round = async () => {
    for (let i = 0; i < texts.length; i++) {
      await runCase(texts[i]!);
      if (i % 100 === 0) await runCase(big);
    }
    for (let i = 0; i < 20; i++) {
      const w = await Wire.open(url);
      await runCase(texts[i]!, w);
      w.close();
      await w.closed;
    }
  };
  await round(); // warm-up: caches, JIT, lazily created structures
  const before = await settledHeap(gc);
  await round();
  await round();
  const after = await settledHeap(gc);
  const growth = after - before;
  const bound = gc ? HEAP_GROWTH_WITH_GC : HEAP_GROWTH_WITHOUT_GC;
  assert.ok(
    growth < bound,
    `heapUsed grew by ${(growth / 2 ** 20).toFixed(1)} MiB over ${2 * texts.length} messages (bound ${bound / 2 ** 20} MiB, gc ${
      gc ? 'forced' : 'unavailable'
    })`,
  );
});

s('afterwards: no crash, no error logged, no browser launched, no session or subscription left', async () => {
  assert.equal(crashes, [], 'no uncaught exception or unhandled rejection');
  const errors = logLines.filter((line) => /^\[pagewire\] error\b/.test(line));
  assert.equal(errors, [], 'nothing logged at error level');
  assert.is(server.host.launches, 0, 'the fuzz loop never launched the browser');
  assert.is(server.host.current, undefined);
  assert.is(server.registry.all().length, 0, 'no session was created');
  // Nothing stray is left on the main socket.
  await runCase(requestText('server.info', undefined, 'final'));
  assert.is(wire.pending, 0, 'no unexpected frame arrived');
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeNamesBefore, 'Object.prototype unchanged');
});

s.run();
