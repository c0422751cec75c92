// Every MCP tool result within its byte budget (PROTOCOL.md §14, "A budget for every result"):
// on the bench's big pages (the long index, shortened to 800 entries so that a loaded machine reads it
// within its budget; the table; Python's documentation), a first look, an
// act, a wait and a new tab stay within the host's budget or the call's own, and reading on by
// cursor gives every element of the observation once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { type McpDoor, textOf, type ToolResult, v2Http } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';

const s = suite('mcp: every result within its byte budget');
const BUDGET = 12_288;
let server: TestServer;
let door: McpDoor;
let fixtures: Awaited<ReturnType<typeof fixtureServer>>;

s.before(async () => {
  server = await startTestServer(['--mcp-max-bytes', String(BUDGET)]);
  fixtures = await fixtureServer();
  door = await v2Http(server.server.mcpUrl, { headers: { Authorization: `Bearer ${server.token}` } });
});

s.after(async () => {
  await door.close();
});

/** What the budget covers: the text and the structured result (an image has its own limits). */
const bytesOf = (result: ToolResult) =>
  new TextEncoder().encode(JSON.stringify({ ...result, content: result.content.filter((block) => block.type === 'text') })).length;

async function within(tool: string, args: Record<string, unknown>, budget = BUDGET): Promise<ToolResult> {
  const result = await door.call(tool, args);
  assert.ok(bytesOf(result) <= budget, `${tool} ${JSON.stringify(args).slice(0, 120)}: ${bytesOf(result)} bytes over ${budget}`);
  return result;
}

const observationOf = (result: ToolResult) => {
  const structured = result.structuredContent!;
  return (structured['fresh_state'] ?? structured['observation'] ?? structured) as {
    state_id: string;
    elements: Array<{ ref: string }>;
    next_cursor?: string;
  };
};

for (const path of ['/long-index.html?entries=800', '/large-table.html', '/python-docs/library/asyncio-task.html']) {
  s(`${path}: open, observe with text, read on: every result within the budget, every element once`, async () => {
    const opened = await within('browser_act', { action: 'navigate', url: fixtures.url(path) });
    assert.ok(observationOf(opened).next_cursor, 'a big page is cut');
    assert.match(textOf(opened), /\nmore: browser_observe \{cursor: "/);
    const first = await within('browser_observe', { include_text: true, max_elements: 500 });
    const refs = [...observationOf(first).elements.map((e) => e.ref)];
    let cursor = observationOf(first).next_cursor;
    let parts = 1;
    while (cursor) {
      const part = await within('browser_observe', { cursor });
      assert.is(observationOf(part).state_id, observationOf(first).state_id);
      refs.push(...observationOf(part).elements.map((e) => e.ref));
      cursor = observationOf(part).next_cursor;
      parts++;
    }
    assert.ok(parts > 1, `${parts} parts`);
    const client = await server.connect();
    const whole = await client.call<{ elements: Array<{ ref: string }> }>('observe', {
      include_text: true,
      max_elements: 500,
      session_id: (first.structuredContent as { session_id: string }).session_id,
    });
    client.close();
    assert.equal(refs, whole.elements.map((e) => e.ref), 'the parts hold every element once, in order');
  });
}

s("a call's own budget; a new tab, a wait and the events stay within theirs", async () => {
  await within('browser_observe', { max_bytes: 9000 }, 9000);
  const tab = await within('browser_tabs', { action: 'new', url: fixtures.url('/large-table.html') });
  assert.ok(observationOf(tab).next_cursor);
  await within('browser_wait', { selector: 'table', max_bytes: 10_000 }, 10_000);
  const seen = observationOf(await within('browser_observe', {}));
  const act = await within('browser_act', { action: 'hover', ref: seen.elements[0]!.ref, observe: { max_bytes: 16_000 } }, 16_000);
  assert.is((act.structuredContent as { status: string }).status, 'completed', textOf(act));
  await within('browser_events', {});
  const refused = await door.call('browser_observe', { max_bytes: 100 });
  assert.ok(refused.isError);
  assert.match(textOf(refused), /max_bytes/);
});

s.run();
