// The wire contract on the real server (PROTOCOL.md §2, §3, §10): auth, origin, size, parse
// errors, unknown methods, schema errors, batches, discovery and the raw CDP switch.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestClient } from '../helpers/client.ts';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { sharedServer, startTestServer } from '../helpers/pagewire.ts';

const s = suite('wire contract');

s('no token or a wrong token: 401; a foreign Origin: 403; an allowed origin: accepted', async () => {
  const { server, token } = await startTestServer(['--allow-origin', 'http://127.0.0.1:5173']);
  assert.is(await TestClient.refusalStatus(server.url), 401);
  assert.is(await TestClient.refusalStatus(`${server.url}?token=wrong`), 401);
  assert.is(await TestClient.refusalStatus(`${server.url}?token=${token}`, { origin: 'http://evil.example' }), 403);
  assert.is(await TestClient.refusalStatus(`${server.url}?token=${token}`, { origin: 'http://127.0.0.1:5173' }), 101);
  assert.is(await TestClient.refusalStatus(server.url, { headers: { authorization: `Bearer ${token}` } }), 101);
  await server.close();
});

s('a 2 MiB message closes the socket with 1009', async () => {
  const client = await (await sharedServer()).connect();
  const closed = client.closed();
  client.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.info', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
  assert.is((await closed).code, 1009);
});

s('not json: -32700 and the socket still answers; unknown method: -32601; bad params: -32602 with issues', async () => {
  const client = await (await sharedServer()).connect();
  const parse = JSON.parse(await client.sendRaw('not json'));
  assert.is(parse.error.code, -32700);
  assert.is(parse.error.data.error_type, 'parse_error');
  assert.is(parse.id, null);
  const info = await client.call('server.info');
  assert.is(info.name, 'pagewire');
  assert.is(info.protocol_version, '1');
  const unknown = await client.callError('no.such.method');
  assert.is(unknown.code, -32601);
  assert.is(unknown.data?.error_type, 'method_not_found');
  const proto = await client.callError('toString');
  assert.is(proto.code, -32601);
  const bad = await client.callError('tabs.new', { url: 42 });
  assert.is(bad.code, -32602);
  assert.is(bad.data?.error_type, 'invalid_params');
  const issues = bad.data?.issues as Array<{ path: string; message: string }>;
  assert.ok(issues.some((issue) => issue.path === 'url'), JSON.stringify(issues));
  const fileUrl = await client.callError('tabs.new', { url: 'file:///etc/passwd' });
  assert.is(fileUrl.data?.error_type, 'invalid_params');
  client.close();
});

s('a batch of two requests gets two responses in order', async () => {
  const client = await (await sharedServer()).connect();
  const reply = JSON.parse(
    await client.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'server.info' },
        { jsonrpc: '2.0', id: 'b', method: 'nope' },
      ]),
    ),
  );
  assert.ok(Array.isArray(reply));
  assert.equal(reply.map((r: { id: string }) => r.id), ['a', 'b']);
  assert.is(reply[0].result.name, 'pagewire');
  assert.is(reply[1].error.code, -32601);
  client.close();
});

s('a request nested past the limit is answered with its own id; a batch holding one gets an array', async () => {
  const client = await (await sharedServer()).connect();
  let nested: unknown = 'bottom';
  for (let i = 0; i < 200; i++) nested = [nested];
  // A client matches replies by id: without its own id the reply would leave this call waiting.
  const refused = await Promise.race([
    client.request('server.info', { nested }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no reply carried the request id')), 10_000)),
  ]);
  const error = refused.error as { code: number; data: Record<string, unknown> };
  assert.is(error.code, -32600);
  assert.equal(error.data, { error_type: 'invalid_request', limit: 'nesting_depth', max: 128 });
  const batch = JSON.parse(
    await client.sendRaw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'deep', method: 'server.info', params: { nested } },
        { jsonrpc: '2.0', id: 'fine', method: 'server.info' },
      ]),
    ),
  );
  assert.ok(Array.isArray(batch), JSON.stringify(batch));
  assert.equal(batch.map((r: { id: string }) => r.id), ['deep', 'fine']);
  assert.is(batch[0].error.data.limit, 'nesting_depth');
  assert.is(batch[1].result.name, 'pagewire');
  client.close();
});

s('a notification nested past the limit is not answered, alone or in a batch', async () => {
  const client = await (await sharedServer()).connect();
  let nested: unknown = 'bottom';
  for (let i = 0; i < 200; i++) nested = [nested];
  const notification = { jsonrpc: '2.0', method: 'server.info', params: { a: nested } };
  client.socket.send(JSON.stringify(notification));
  client.socket.send(JSON.stringify([notification, notification]));
  // Frames are answered in order: the first reply after them must be this request's.
  const next = JSON.parse(await client.sendRaw(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'server.info' })));
  assert.is(next.id, 'after', `a reply to a notification came first: ${JSON.stringify(next).slice(0, 300)}`);
  assert.is(next.result.name, 'pagewire');
  // In a batch with a request, only the request is answered.
  const mixed = JSON.parse(
    await client.sendRaw(JSON.stringify([notification, { jsonrpc: '2.0', id: 'deep', method: 'server.info', params: { a: nested } }])),
  );
  assert.equal(mixed.map((r: { id: string }) => r.id), ['deep']);
  client.close();
});

s('rpc.discover describes every method with the schemas that validate it', async () => {
  const client = await (await sharedServer()).connect();
  const doc = await client.call(
    'rpc.discover',
  );
  const names = doc.methods.map((m) => m.name);
  for (
    const name of [
      'session.create',
      'session.list',
      'session.close',
      'tabs.list',
      'tabs.new',
      'tabs.select',
      'tabs.close',
      'frames.list',
      'frames.select',
      'server.info',
      'rpc.discover',
    ]
  ) {
    assert.ok(names.includes(name), name);
  }
  assert.not.ok(names.includes('cdp.send'), 'cdp.send is absent without --allow-raw-cdp');
  const tabsNew = doc.methods.find((m) => m.name === 'tabs.new')!;
  assert.ok(tabsNew.params.some((p) => p.name === 'url'));
  const raw = await client.callError('cdp.send', { method: 'Runtime.evaluate', params: { expression: '1' } });
  assert.is(raw.data?.error_type, 'method_not_found');
  client.close();
});

s('cdp.send works with --allow-raw-cdp', async () => {
  const fixtures = await fixtureServer();
  const { server, connect } = await startTestServer(['--allow-raw-cdp']);
  const client = await connect();
  await client.call('tabs.new', { url: fixtures.url('/child.html') });
  const result = await client.call<{ result: { value: string } }>('cdp.send', {
    method: 'Runtime.evaluate',
    params: { expression: 'document.title', returnByValue: true },
  });
  assert.is(result.result.value, 'Child frame');
  client.close();
  await server.close();
});

s.run();
