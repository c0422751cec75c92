import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { z } from 'zod';
import { ServerError } from '../../src/errors.ts';
import type { CallContext, Principal } from '../../src/rpc/context.ts';
import { type AnyMethodDef, defineMethod } from '../../src/rpc/define.ts';
import { MAX_BATCH_LENGTH, MAX_NESTING_DEPTH, RpcServer } from '../../src/rpc/server.ts';
import type { RpcSocket } from '../../src/rpc/socket.ts';
import { HttpListener } from '../../src/runtime/http-server.ts';
import { createLogger } from '../../src/util/log.ts';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const notified: string[] = [];
let gate = deferred();

const methods: AnyMethodDef[] = [
  defineMethod({
    name: 'echo',
    summary: 'Returns its text',
    params: z.object({ text: z.string(), n: z.number().optional() }),
    result: z.object({ text: z.string(), principal: z.string() }),
    handler: (params, call) => Promise.resolve({ text: params.text, principal: call.principal.id }),
  }),
  defineMethod({
    name: 'nested',
    summary: 'Needs a.b',
    params: z.object({ a: z.object({ b: z.string() }), list: z.array(z.number()).optional() }),
    result: z.object({ ok: z.boolean() }),
    handler: () => Promise.resolve({ ok: true }),
  }),
  defineMethod({
    name: 'optional_only',
    summary: 'Works with no params',
    params: z.object({ x: z.number().default(7) }),
    result: z.object({ x: z.number() }),
    handler: (params) => Promise.resolve({ x: params.x }),
  }),
  defineMethod({
    name: 'note',
    summary: 'Records a notification',
    params: z.object({ text: z.string() }),
    result: z.undefined(),
    handler: (params) => {
      notified.push(params.text);
      return Promise.resolve(undefined);
    },
  }),
  defineMethod({
    name: 'nothing',
    summary: 'Returns undefined',
    params: z.object({}),
    result: z.undefined(),
    handler: () => Promise.resolve(undefined),
  }),
  defineMethod({
    name: 'fail',
    summary: 'Throws a ServerError',
    params: z.object({}),
    result: z.unknown(),
    handler: () =>
      Promise.reject(new ServerError('session_not_found', 'no such session', { details: { session_id: 's-1', error_type: 'spoofed' } })),
  }),
  defineMethod({
    name: 'boom',
    summary: 'Throws an unexpected error',
    params: z.object({ password: z.string().optional() }),
    result: z.unknown(),
    handler: () => Promise.reject(new Error('kaboom')),
  }),
  defineMethod({
    name: 'throw_value',
    summary: 'Throws a non-Error value',
    params: z.object({ kind: z.enum(['string', 'object', 'null', 'empty_server_error', 'internal_server_error']) }),
    result: z.unknown(),
    handler: (params) => {
      const values: Record<typeof params.kind, unknown> = {
        string: 'plain string',
        object: { password: 'hunter2-secret' },
        null: null,
        empty_server_error: new ServerError('timeout', ''),
        internal_server_error: new ServerError('internal_error', 'invariant broken', { details: { error_text: 'x' } }),
      };
      return Promise.reject(values[params.kind]);
    },
  }),
  defineMethod({
    name: 'sync_throw',
    summary: 'Throws before returning a promise',
    params: z.object({}),
    result: z.unknown(),
    handler: (() => {
      throw new TypeError('sync');
    }) as unknown as AnyMethodDef['handler'],
  }),
  defineMethod({
    name: 'bigint',
    summary: 'Returns something JSON cannot hold',
    params: z.object({}),
    result: z.object({ n: z.bigint() }),
    handler: () => Promise.resolve({ n: 1n }),
  }),
  defineMethod({
    name: 'wait_gate',
    summary: 'Resolves once open_gate ran',
    params: z.object({}),
    result: z.string(),
    handler: async () => {
      await gate.promise;
      return 'waited';
    },
  }),
  defineMethod({
    name: 'open_gate',
    summary: 'Opens the gate',
    params: z.object({}),
    result: z.string(),
    handler: () => {
      gate.resolve();
      return Promise.resolve('opened');
    },
  }),
];

const logLines: string[] = [];
const log = createLogger({ level: 'debug', sink: (line) => logLines.push(line), format: 'json' });
const server = new RpcServer({ methods, log });

const principal: Principal = { id: 'token-1' };
const call: CallContext = {
  principal,
  connection: {
    id: 'c1',
    principal,
    signal: new AbortController().signal,
    notify: () => true,
    bufferedAmount: () => 0,
  },
};

// deno-lint-ignore no-explicit-any -- reply shapes vary per case; assertions check them
type Json = Record<string, any>;

// deno-lint-ignore no-explicit-any -- an object, an array or nothing, per case
async function rpc(payload: unknown): Promise<any> {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const reply = await server.handle(text, call);
  return reply === undefined ? undefined : JSON.parse(reply);
}

const req = (id: unknown, method: string, params?: unknown): Json =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

function assertError(response: Json, code: number, errorType: string, id: unknown): void {
  assert.is(response['jsonrpc'], '2.0');
  assert.is(response['id'], id);
  assert.is(response['result'], undefined);
  assert.is(response['error'].code, code);
  assert.type(response['error'].message, 'string');
  assert.is(response['error'].data.error_type, errorType);
}

const s = suite('RpcServer');

s.before.each(() => {
  notified.length = 0;
  logLines.length = 0;
  gate = deferred();
});

s('a call returns its result with the same id', async () => {
  assert.equal(await rpc(req(1, 'echo', { text: 'hi' })), { jsonrpc: '2.0', id: 1, result: { text: 'hi', principal: 'token-1' } });
});

s('id types are kept exactly: string, number, zero, fraction, null', async () => {
  for (const id of ['abc', '1', 0, 42, 1.5, -3, null]) {
    const response = await rpc(req(id, 'echo', { text: 'x' }));
    assert.is(response.id, id);
    assert.ok('result' in response);
  }
});

s('malformed JSON → -32700 parse_error with id null', async () => {
  for (const text of ['{', '', 'not json', '{"jsonrpc":"2.0",', '[1,2']) {
    assertError(await rpc(text), -32700, 'parse_error', null);
  }
});

s('invalid request objects → -32600, id echoed only when it is a valid id', async () => {
  assertError(await rpc({ jsonrpc: '1.0', id: 1, method: 'echo' }), -32600, 'invalid_request', 1);
  assertError(await rpc({ id: 'a', method: 'echo' }), -32600, 'invalid_request', 'a');
  assertError(await rpc({ jsonrpc: '2.0', id: 2 }), -32600, 'invalid_request', 2);
  assertError(await rpc({ jsonrpc: '2.0', id: 3, method: 5 }), -32600, 'invalid_request', 3);
  assertError(await rpc({ jsonrpc: '2.0', id: 4, method: 'echo', params: 'text' }), -32600, 'invalid_request', 4);
  assertError(await rpc({ jsonrpc: '2.0', id: 5, method: 'echo', params: null }), -32600, 'invalid_request', 5);
  assertError(await rpc({ jsonrpc: '2.0', id: { a: 1 }, method: 'echo' }), -32600, 'invalid_request', null);
  assertError(await rpc({ jsonrpc: '2.0', id: [1], method: 'echo' }), -32600, 'invalid_request', null);
  assertError(await rpc({ jsonrpc: '2.0', id: true, method: 'echo' }), -32600, 'invalid_request', null);
  assertError(await rpc('{"jsonrpc":"2.0","id":1e400,"method":"echo"}'), -32600, 'invalid_request', null);
  for (const junk of ['42', '"str"', 'null', 'true']) assertError(await rpc(junk), -32600, 'invalid_request', null);
});

s('an invalid request without id is still answered', async () => {
  assertError(await rpc({ jsonrpc: '2.0', method: 7 }), -32600, 'invalid_request', null);
});

s('unknown methods and prototype names → -32601 method_not_found', async () => {
  for (const name of ['nope', 'toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__', '']) {
    const response = await rpc(req(9, name, {}));
    assertError(response, -32601, 'method_not_found', 9);
  }
});

s('an unknown method named in a notification gets no reply', async () => {
  assert.is(await rpc({ jsonrpc: '2.0', method: 'toString' }), undefined);
});

s('positional params → -32602 invalid_params', async () => {
  const response = await rpc(req(1, 'echo', ['hi']));
  assertError(response, -32602, 'invalid_params', 1);
  assert.ok(Array.isArray(response.error.data.issues));
});

s('omitted params are {}', async () => {
  assert.equal((await rpc(req(1, 'optional_only'))).result, { x: 7 });
  assertError(await rpc(req(2, 'echo')), -32602, 'invalid_params', 2);
});

s('schema failures list dotted paths and messages in data.issues', async () => {
  const response = await rpc(req('p', 'nested', { a: { b: 1 }, list: [1, 'two'] }));
  assertError(response, -32602, 'invalid_params', 'p');
  const issues = response.error.data.issues as Array<{ path: string; message: string }>;
  assert.equal(issues.map((i) => i.path).sort(), ['a.b', 'list.1']);
  for (const issue of issues) {
    assert.type(issue.message, 'string');
    assert.ok(issue.message.length > 0);
  }
  assert.match(response.error.message, /a\.b|list\.1/);
});

s('invalid params never echo the value sent', async () => {
  const secret = 'sk-live-0123456789abcdef';
  const response = await rpc(req(1, 'echo', { text: { secret } }));
  assertError(response, -32602, 'invalid_params', 1);
  assert.not.ok(JSON.stringify(response).includes(secret));
});

s('a ServerError keeps its code, message and details; error_type cannot be overridden', async () => {
  const response = await rpc(req(1, 'fail', {}));
  assert.equal(response, {
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32004, message: 'no such session', data: { error_type: 'session_not_found', session_id: 's-1' } },
  });
});

s('an unexpected error → -32603 internal_error with error_text, logged, no stack', async () => {
  const response = await rpc(req(1, 'boom', { password: 'hunter2-secret' }));
  assertError(response, -32603, 'internal_error', 1);
  assert.is(response.error.data.error_text, 'kaboom');
  const text = JSON.stringify(response);
  assert.not.ok(text.includes('at '), 'no stack frames on the wire');
  assert.not.ok(text.includes('hunter2-secret'));
  assert.ok(logLines.some((line) => line.includes('kaboom') && line.includes('"method":"boom"')));
  assert.not.ok(logLines.some((line) => line.includes('hunter2-secret')), 'params are not logged');
});

s('non-Error throws map to internal_error without echoing their content', async () => {
  const str = await rpc(req(1, 'throw_value', { kind: 'string' }));
  assertError(str, -32603, 'internal_error', 1);
  assert.is(str.error.data.error_text, 'plain string');
  const obj = await rpc(req(2, 'throw_value', { kind: 'object' }));
  assertError(obj, -32603, 'internal_error', 2);
  assert.not.ok(JSON.stringify(obj).includes('hunter2-secret'));
  assertError(await rpc(req(3, 'throw_value', { kind: 'null' })), -32603, 'internal_error', 3);
});

s('a ServerError without a message gets its word; an internal ServerError is logged', async () => {
  const timeout = await rpc(req(1, 'throw_value', { kind: 'empty_server_error' }));
  assertError(timeout, -32011, 'timeout', 1);
  assert.is(timeout.error.message, 'timeout');
  logLines.length = 0;
  const internal = await rpc(req(2, 'throw_value', { kind: 'internal_server_error' }));
  assertError(internal, -32603, 'internal_error', 2);
  assert.is(internal.error.message, 'invariant broken');
  assert.ok(logLines.some((line) => line.includes('"level":"error"') && line.includes('invariant broken')));
});

s('a handler that throws synchronously is still an internal_error', async () => {
  const response = await rpc(req(1, 'sync_throw', {}));
  assertError(response, -32603, 'internal_error', 1);
  assert.is(response.error.data.error_text, 'sync');
});

s('an undefined result becomes null', async () => {
  assert.equal(await rpc(req(1, 'nothing', {})), { jsonrpc: '2.0', id: 1, result: null });
});

s('a result JSON cannot hold becomes internal_error for that id', async () => {
  const response = await rpc(req(1, 'bigint', {}));
  assertError(response, -32603, 'internal_error', 1);
});

s('a notification runs and gets no reply', async () => {
  assert.is(await rpc({ jsonrpc: '2.0', method: 'note', params: { text: 'n1' } }), undefined);
  assert.equal(notified, ['n1']);
  // Failing notifications are silent too.
  assert.is(await rpc({ jsonrpc: '2.0', method: 'boom' }), undefined);
  assert.is(await rpc({ jsonrpc: '2.0', method: 'echo', params: { text: 1 } }), undefined);
});

s('a batch of two → two responses in input order', async () => {
  const response = await rpc([req(1, 'echo', { text: 'a' }), req('two', 'echo', { text: 'b' })]);
  assert.ok(Array.isArray(response));
  assert.equal(
    response.map((r: Json) => [r['id'], r['result'].text]),
    [
      [1, 'a'],
      ['two', 'b'],
    ],
  );
});

s('batch elements run concurrently but answer in input order', async () => {
  // wait_gate only finishes once open_gate (later in the batch) has run.
  const response = await rpc([req(1, 'wait_gate', {}), req(2, 'open_gate', {})]);
  assert.equal(
    response.map((r: Json) => [r['id'], r['result']]),
    [
      [1, 'waited'],
      [2, 'opened'],
    ],
  );
});

s('[] → a single invalid_request object, not an array', async () => {
  const response = await rpc('[]');
  assert.not.ok(Array.isArray(response));
  assertError(response, -32600, 'invalid_request', null);
});

s('a one-element batch still answers with an array', async () => {
  const response = await rpc([req(1, 'echo', { text: 'a' })]);
  assert.ok(Array.isArray(response));
  assert.is(response.length, 1);
});

s('null, numbers and junk elements each get their own invalid_request', async () => {
  const response = await rpc([null, 1, 'x', [], req(5, 'echo', { text: 'ok' })]);
  assert.is(response.length, 5);
  for (const r of response.slice(0, 4)) assertError(r, -32600, 'invalid_request', null);
  assert.equal(response[4].result, { text: 'ok', principal: 'token-1' });
});

s('[null] → an array with one invalid_request', async () => {
  const response = await rpc('[null]');
  assert.ok(Array.isArray(response));
  assert.is(response.length, 1);
  assertError(response[0], -32600, 'invalid_request', null);
});

s('notifications inside a batch produce nothing; all-notification batch → no reply', async () => {
  const mixed = await rpc([{ jsonrpc: '2.0', method: 'note', params: { text: 'a' } }, req(2, 'echo', { text: 'b' })]);
  assert.is(mixed.length, 1);
  assert.is(mixed[0].id, 2);
  const none = await rpc([
    { jsonrpc: '2.0', method: 'note', params: { text: 'c' } },
    { jsonrpc: '2.0', method: 'nope' },
  ]);
  assert.is(none, undefined);
  assert.equal(notified.sort(), ['a', 'c']);
});

s('errors inside a batch stay per element', async () => {
  const response = await rpc([req(1, 'fail', {}), req(2, 'toString', {}), req(3, 'echo', ['x']), req(4, 'echo', { text: 'y' })]);
  assert.equal(
    response.map((r: Json) => r['error']?.code ?? 'ok'),
    [-32004, -32601, -32602, 'ok'],
  );
});

s(`a batch longer than ${MAX_BATCH_LENGTH} is refused whole`, async () => {
  const batch = Array.from({ length: MAX_BATCH_LENGTH + 1 }, (_, i) => req(i, 'note', { text: String(i) }));
  const response = await rpc(batch);
  assert.not.ok(Array.isArray(response));
  assertError(response, -32600, 'invalid_request', null);
  assert.is(response.error.data.max_batch_length, MAX_BATCH_LENGTH);
  assert.is(notified.length, 0);
  const full = await rpc(batch.slice(0, MAX_BATCH_LENGTH));
  assert.is(full.length, MAX_BATCH_LENGTH);
});

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
/** A request text whose params nest `n` levels deeper than the request object itself. */
const deepRequest = (members: string) => `{"jsonrpc":"2.0",${members}}`;

function assertTooDeep(response: Json, id: unknown): void {
  assertError(response, -32600, 'invalid_request', id);
  assert.is(response['error'].data.limit, 'nesting_depth');
  assert.is(response['error'].data.max, MAX_NESTING_DEPTH);
}

s('a request nested too deep is refused with its own id, whatever its type', async () => {
  const params = `"params":{"x":${deep(MAX_NESTING_DEPTH)}}`;
  for (
    const [text, id] of [
      [`"id":7,"method":"echo",${params}`, 7],
      [`"id":"abc","method":"echo",${params}`, 'abc'],
      [`"id":-1.5e2,"method":"echo",${params}`, -150],
      [`"id":null,"method":"echo",${params}`, null],
      [`"id":"a\\"b\\u00e9","method":"echo",${params}`, 'a"bé'],
      // After the deep part: the id is read all the same.
      [`"method":"echo",${params},"id":9`, 9],
      [` "method" : "echo" ,\n\t${params} ,\r\n "id" : 10 `, 10],
      // An escaped key is the same key.
      [`"\\u0069d":11,"method":"echo",${params}`, 11],
      [`"i\\u0064":12,"method":"echo",${params}`, 12],
    ] as Array<[string, unknown]>
  ) {
    assertTooDeep(await rpc(deepRequest(text)), id);
  }
});

s('the id of a too-deep request cannot be faked: nested ids, ids in strings, duplicates, invalid ids', async () => {
  const params = `"params":{"id":5,"x":${deep(MAX_NESTING_DEPTH)}}`;
  for (
    const [text, id] of [
      // Only the request's own member counts: without one it is a notification, not answered.
      [`"method":"echo",${params}`, undefined],
      [`"method":"echo","params":[{"id":5},${deep(MAX_NESTING_DEPTH)}]`, undefined],
      [`"method":"\\"id\\":5","params":${deep(MAX_NESTING_DEPTH)}`, undefined],
      [`"method":"echo","params":{"\\"id":5,"x":${deep(MAX_NESTING_DEPTH)}}`, undefined],
      [`"method":"echo","ID":5,"params":${deep(MAX_NESTING_DEPTH)}`, undefined],
      // Duplicates: the last one wins, as in JSON.parse.
      [`"id":1,"method":"echo",${params},"id":2`, 2],
      [`"id":1,"id":{"a":1},"method":"echo",${params}`, null],
      [`"id":{"a":1},"id":3,"method":"echo",${params}`, 3],
      [`"id":${deep(MAX_NESTING_DEPTH + 1)},"method":"echo"`, null],
      [`"id":${deep(MAX_NESTING_DEPTH + 1)},"id":4,"method":"echo"`, 4],
      // Not an id.
      [`"id":true,"method":"echo",${params}`, null],
      [`"id":[1],"method":"echo",${params}`, null],
      [`"id":1e400,"method":"echo",${params}`, null],
    ] as Array<[string, unknown]>
  ) {
    const response = await rpc(deepRequest(text));
    if (id === undefined) assert.is(response, undefined, text.slice(0, 120));
    else assertTooDeep(response, id);
  }
});

s('a too-deep text that is not JSON gets id null, even with a readable id', async () => {
  const inner = deep(MAX_NESTING_DEPTH);
  for (
    const text of [
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":${'['.repeat(MAX_NESTING_DEPTH + 1)}`, // unterminated
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":${inner}} trailing`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":${'['.repeat(MAX_NESTING_DEPTH)}${'}'.repeat(MAX_NESTING_DEPTH)}}`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":[${inner},]}`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":[${inner} 01]}`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":[${inner},"\\x"]}`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":[${inner},"tab\tinside"]}`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":[${inner},tru]}`,
      `{"jsonrpc":"2.0","id":5 "method":"echo","params":${inner}}`,
      `{"jsonrpc":"2.0","id":5,,"method":"echo","params":${inner}}`,
      `{"jsonrpc":"2.0","id":5,"method":"echo","params":{"a" ${inner}}}`,
    ]
  ) {
    assertTooDeep(await rpc(text), null);
  }
});

s('a batch with a too-deep element: an array, that element refused with its id, the others run', async () => {
  const deepElement = (id: unknown) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"echo","params":{"x":${deep(MAX_NESTING_DEPTH)}}}`;
  const text = `[${JSON.stringify(req(1, 'echo', { text: 'a' }))},${
    deepElement('deep')
  },{"jsonrpc":"2.0","method":"note","params":{"text":"n"}},${JSON.stringify(req(3, 'echo', { text: 'c' }))}]`;
  const response = await rpc(text);
  assert.ok(Array.isArray(response), JSON.stringify(response));
  assert.equal(response.map((r: Json) => r['id']), [1, 'deep', 3]);
  assert.equal(response[0].result, { text: 'a', principal: 'token-1' });
  assertTooDeep(response[1], 'deep');
  assert.equal(response[2].result, { text: 'c', principal: 'token-1' });
  assert.equal(notified, ['n'], 'the notification in the batch ran');
});

s('batch elements are judged one by one: the batch level counts, a deep non-object element gets id null', async () => {
  // The batch, the element, its params and 125 arrays: 128 levels, accepted.
  const fits = `{"jsonrpc":"2.0","id":"fits","method":"nested","params":{"a":{"b":"x"},"pad":${deep(MAX_NESTING_DEPTH - 3)}}}`;
  const over = fits.replace('"fits"', '"over"').replace('"pad":[', '"pad":[[').replace(/]}}$/, ']]}}');
  const idless = `{"jsonrpc":"2.0","method":"note","params":{"text":"never","x":${deep(MAX_NESTING_DEPTH)}}}`;
  const response = await rpc(`[${fits},${idless},${deep(MAX_NESTING_DEPTH)},${deep(MAX_NESTING_DEPTH - 1)},${over}]`);
  assert.ok(Array.isArray(response), JSON.stringify(response));
  assert.is(response.length, 4, 'the notification is not answered');
  assert.equal(response[0], { jsonrpc: '2.0', id: 'fits', result: { ok: true } }, 'parsed and run like any call');
  assertTooDeep(response[1], null);
  assertError(response[2], -32600, 'invalid_request', null); // [] nested 127 deep: not a request
  assert.is(response[2].error.data.limit, undefined);
  assertTooDeep(response[3], 'over');
  assert.equal(notified, [], 'a refused notification does not run');
});

s('a notification nested too deep is never answered, alone or in a batch; it does not run', async () => {
  const params = `"params":{"text":"never","x":${deep(MAX_NESTING_DEPTH)}}`;
  const notification = `{"jsonrpc":"2.0","method":"note",${params}}`;
  for (
    const text of [
      notification,
      // Its members in any order, an escaped key, an `id` only inside its params.
      `{${params},"method":"note","jsonrpc":"2.0"}`,
      `{"jsonrpc":"2.0","method":"note","params":{"id":1,"x":${deep(MAX_NESTING_DEPTH)}}}`,
      `{"jsonrpc":"2.0","method":"note","ID":7,${params}}`,
      `[${notification}]`,
      `[${notification},${notification}]`,
      // A notification that fits is run, and answers nothing either.
      `[${notification},{"jsonrpc":"2.0","method":"note","params":{"text":"ran"}}]`,
    ]
  ) {
    assert.is(await server.handle(text, call), undefined, text.slice(0, 120));
  }
  assert.equal(notified, ['ran'], 'only the notification that fits ran');
  assert.ok(logLines.some((line) => line.includes('notification dropped: nested too deep')), 'said at debug');
  // One with an id, even a null one or an invalid one, is a request: refused under its id.
  assertTooDeep(await rpc(`{"jsonrpc":"2.0","id":null,"method":"note",${params}}`), null);
  assertTooDeep(await rpc(`{"jsonrpc":"2.0","id":[1],"method":"note",${params}}`), null);
  const mixed = await rpc(`[${notification},{"jsonrpc":"2.0","id":"deep","method":"note",${params}}]`);
  assert.equal(mixed.map((r: Json) => r['id']), ['deep']);
});

s('a too-deep batch longer than the limit is refused whole', async () => {
  const elements = Array.from({ length: MAX_BATCH_LENGTH + 1 }, (_, i) => JSON.stringify(req(i, 'note', { text: String(i) })));
  elements[0] = `{"jsonrpc":"2.0","id":0,"method":"note","params":${deep(MAX_NESTING_DEPTH)}}`;
  const response = await rpc(`[${elements.join(',')}]`);
  assert.not.ok(Array.isArray(response));
  assertError(response, -32600, 'invalid_request', null);
  assert.is(response.error.data.max_batch_length, MAX_BATCH_LENGTH);
  assert.is(notified.length, 0);
});

s('no error reply ever carries code 0', async () => {
  const payloads: unknown[] = ['{', '[]', '[null]', req(1, 'boom', {}), req(1, 'fail', {}), req(1, 'nope', {}), req(1, 'echo', {})];
  for (const payload of payloads) {
    const text = await server.handle(typeof payload === 'string' ? payload : JSON.stringify(payload), call);
    assert.ok(text);
    assert.not.match(text!, /"code":0[,}]/);
  }
});

s('duplicate method names are refused at construction', () => {
  assert.throws(() => new RpcServer({ methods: [methods[0]!, methods[0]!] }), /duplicate/);
});

s('methods lists the table in order', () => {
  assert.equal(
    server.methods.map((m) => m.name),
    methods.map((m) => m.name),
  );
});

s('over a real socket: a parse error is answered and the socket keeps working', async () => {
  const http = await HttpListener.listen({
    host: '127.0.0.1',
    port: 0,
    tokens: ['wire-token-0123456789'],
    noAuth: false,
    allowOrigins: [],
    onConnection(socket: RpcSocket, who: Principal, signal: AbortSignal) {
      const context: CallContext = {
        principal: who,
        connection: { id: 'wire', principal: who, signal, notify: () => true, bufferedAmount: () => socket.bufferedAmount() },
      };
      return {
        onMessage(text) {
          void server.handle(text, context).then((reply) => {
            if (reply !== undefined) socket.send(reply);
          });
        },
      };
    },
  });
  const ws = new WebSocket(`${http.url}?token=wire-token-0123456789`);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const next = () => new Promise<Json>((resolve) => ws.once('message', (data: WebSocket.RawData) => resolve(JSON.parse(String(data)))));

    let reply = next();
    ws.send('{"jsonrpc":"2.0","id":1,"method":"echo"');
    assertError(await reply, -32700, 'parse_error', null);

    reply = next();
    ws.send(JSON.stringify(req(2, 'echo', { text: 'still alive' })));
    assert.equal(await reply, { jsonrpc: '2.0', id: 2, result: { text: 'still alive', principal: 'token-1' } });

    reply = next();
    ws.send(JSON.stringify([req(3, 'echo', { text: 'a' }), req(4, 'toString', {})]));
    const batch = (await reply) as unknown as Json[];
    assert.equal(
      batch.map((r) => r['id']),
      [3, 4],
    );
  } finally {
    ws.terminate();
    await http.close();
  }
});

s.run();
