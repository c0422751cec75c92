// CORS on /mcp (PROTOCOL.md §13): an MCP client in a browser page of an accepted Origin (the
// rule the WebSocket upgrade applies) can call /mcp with its token in an Authorization header;
// its preflight carries no token, so it is answered from the Host and Origin checks alone and
// reveals and does nothing; a page of any other Origin gets a 403 without CORS headers, so the
// browser never sends the request. End to end from real Chromium pages, and over raw HTTP.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { type Answer, exchange } from '../helpers/http-exchange.ts';
import { evaluate } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';

const cors = suite('mcp: CORS for browser pages');

let serverPromise: Promise<TestServer> | undefined;
/** A server that accepts pages of the fixture server's 127.0.0.1 origin (not its localhost one). */
const server = () => (serverPromise ??= fixtureServer().then((fixtures) => startTestServer(['--allow-origin', fixtures.origin])));

/** The preflight Chromium sends before a POST with an Authorization header. */
function preflight(url: string, headers: Record<string, string>): Promise<Answer> {
  return exchange(url, 'OPTIONS', {
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization,content-type,mcp-method,mcp-protocol-version',
    ...headers,
  });
}

const corsHeaders = (answer: Answer) => Object.keys(answer.headers).filter((name) => name.startsWith('access-control-'));

const TOOLS_LIST = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/list',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const MODERN = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/list',
};

/** Opens the web MCP client fixture from `url` in a new tab and returns its target id. */
async function openClientPage(s: TestServer, url: string): Promise<string> {
  const client = await s.connect();
  const { session_id } = await client.call<{ session_id: string }>('session.create', { name: `cors-${crypto.randomUUID()}` });
  const opened = await client.call<{ target_id: string; error_text?: string }>('tabs.new', { session_id, url });
  assert.is(opened.error_text, undefined);
  client.close();
  return opened.target_id;
}

cors('a page of an accepted origin calls /mcp with a Bearer header: the preflight passes, the answer is readable', async () => {
  const s = await server();
  const fixtures = await fixtureServer();
  const targetId = await openClientPage(s, fixtures.url('/mcp-web-client.html'));
  const mcpUrl = s.server.mcpUrl;
  const listed = await evaluate<{ status: number; tools: string[] }>(
    s,
    targetId,
    `window.playground.listTools(${JSON.stringify(mcpUrl)}, ${JSON.stringify(s.token)})`,
  );
  assert.is(listed.status, 200);
  assert.is(listed.tools.length, 11);
  assert.ok(listed.tools.includes('browser_observe'));
  // A 2025-era client reads its session's id from a response header: exposed to the page.
  const opened = await evaluate<{ status: number; sessionId: string | null }>(
    s,
    targetId,
    `window.playground.initialize(${JSON.stringify(mcpUrl)}, ${JSON.stringify(s.token)})`,
  );
  assert.is(opened.status, 200);
  assert.type(opened.sessionId, 'string');
});

cors('a page of an origin the server does not accept cannot call /mcp: the browser stops at the preflight', async () => {
  const s = await server();
  const fixtures = await fixtureServer();
  const targetId = await openClientPage(s, fixtures.otherUrl('/mcp-web-client.html'));
  const outcome = await evaluate<string>(
    s,
    targetId,
    `window.playground.listTools(${JSON.stringify(s.server.mcpUrl)}, ${JSON.stringify(s.token)}).then(
      (answer) => 'answered ' + answer.status, (error) => error.name + ': ' + error.message)`,
  );
  assert.is(outcome, 'TypeError: Failed to fetch');
});

cors('the preflight of an accepted origin: 204 with the Access-Control-* answers, no token needed, nothing else', async () => {
  const s = await server();
  const fixtures = await fixtureServer();
  const answer = await preflight(s.server.mcpUrl, { origin: fixtures.origin });
  assert.is(answer.status, 204);
  assert.is(answer.body, '');
  assert.is(answer.headers['access-control-allow-origin'], fixtures.origin);
  assert.is(answer.headers['access-control-allow-methods'], 'POST, GET, DELETE');
  const allowed = String(answer.headers['access-control-allow-headers']).split(', ');
  for (
    const name of [
      'authorization',
      'content-type',
      'accept',
      'mcp-protocol-version',
      'mcp-session-id',
      'mcp-method',
      'mcp-name',
      'last-event-id',
    ]
  ) {
    assert.ok(allowed.includes(name), `${name} in ${allowed.join(', ')}`);
  }
  assert.is(answer.headers['access-control-max-age'], '7200');
  assert.is(answer.headers['access-control-expose-headers'], 'mcp-session-id, mcp-protocol-version, www-authenticate, pagewire-instance');
  assert.match(String(answer.headers['vary']), /Origin/);
  // Nothing MCP spoke: no session, no protocol header, no JSON-RPC.
  assert.is(answer.headers['mcp-session-id'], undefined);
  assert.is(answer.headers['content-type'], undefined);
  // The server's own origin is accepted as for the WebSocket.
  const own = await preflight(s.server.mcpUrl, { origin: new URL(s.server.mcpUrl).origin });
  assert.is(own.status, 204);
});

cors('the preflight of a refused origin or Host: 403 and no CORS header', async () => {
  const s = await server();
  const fixtures = await fixtureServer();
  for (const origin of [fixtures.otherOrigin, 'http://evil.example', 'null']) {
    const answer = await preflight(s.server.mcpUrl, { origin });
    assert.is(answer.status, 403, origin);
    assert.equal(corsHeaders(answer), [], origin);
  }
  const host = await preflight(s.server.mcpUrl, { origin: fixtures.origin, host: `evil.example:${new URL(s.server.mcpUrl).port}` });
  assert.is(host.status, 403);
  assert.equal(corsHeaders(host), []);
});

cors('real answers to an accepted origin carry Access-Control-Allow-Origin and Vary: Origin (a 401 too); a refused one none', async () => {
  const s = await server();
  const fixtures = await fixtureServer();
  const url = s.server.mcpUrl;
  const ok = await exchange(url, 'POST', { ...MODERN, authorization: `Bearer ${s.token}`, origin: fixtures.origin }, TOOLS_LIST);
  assert.is(ok.status, 200, ok.body);
  assert.is(ok.headers['access-control-allow-origin'], fixtures.origin);
  assert.match(String(ok.headers['vary']), /Origin/);
  assert.match(String(ok.headers['access-control-expose-headers']), 'mcp-session-id');
  const unauthorized = await exchange(url, 'POST', { ...MODERN, origin: fixtures.origin }, TOOLS_LIST);
  assert.is(unauthorized.status, 401);
  assert.is(unauthorized.headers['access-control-allow-origin'], fixtures.origin, 'the page can tell a wrong token');
  const refused = await exchange(url, 'POST', { ...MODERN, authorization: `Bearer ${s.token}`, origin: fixtures.otherOrigin }, TOOLS_LIST);
  assert.is(refused.status, 403);
  assert.equal(corsHeaders(refused), []);
  const noOrigin = await exchange(url, 'POST', { ...MODERN, authorization: `Bearer ${s.token}` }, TOOLS_LIST);
  assert.is(noOrigin.status, 200);
  assert.equal(corsHeaders(noOrigin), [], 'a client that is no page gets no CORS headers');
});

cors.run();
