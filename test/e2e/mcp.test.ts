// pagewire as an MCP server (PROTOCOL.md §13), end to end against real Chromium, through the
// official SDK clients: v2 over Streamable HTTP (2026-07-28), v1 over Streamable HTTP (2025) and
// v2 over stdio (the real `pagewire mcp` process). The same flows run on each door: a login
// form observed, filled and submitted (verified), a reused state refused, a screenshot, a
// confirm() answered, a file chooser resolved, a cancellation that frees the session at once.
import { Buffer } from 'node:buffer';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { type McpDoor, refIn, type StdioDoor, textOf, type ToolResult, v1Http, v2Http, v2Stdio } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { descendants, waitUntilGone } from '../helpers/processes.ts';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';

const SECRET = 'correct-horse-battery-staple-42';
const uploads = mkdtempSync(join(tmpdir(), 'pagewire-mcp-uploads-'));
const REPORT = join(uploads, 'report.txt');
writeFileSync(REPORT, 'quarterly numbers\n');
onTeardown(() => rmSync(uploads, { recursive: true, force: true }));

const TOKEN_V2 = `mcp-v2-${crypto.randomUUID()}`;
const TOKEN_V1 = `mcp-v1-${crypto.randomUUID()}`;
let serverPromise: Promise<TestServer> | undefined;
/** One server for the HTTP doors: each door is its own principal (its own token). */
const httpServer = () => (serverPromise ??= startTestServer(['--token', TOKEN_V2, '--token', TOKEN_V1, '--uploads', uploads]));

/** The image block, which structuredContent names by its index. */
function imageOf(result: ToolResult): ToolResult['content'][number] {
  const image = result.content[1];
  assert.is(image?.type, 'image', 'content[1] is the image block');
  assert.is(result.content.filter((block) => block.type === 'image').length, 1);
  return image!;
}

type JsonObject = Record<string, unknown>;

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

function tree(result: ToolResult): string {
  const s = result.structuredContent!;
  return String((s['fresh_state'] as Record<string, unknown> | undefined)?.['tree'] ?? s['tree']);
}

/** Opens the fixture app in a new selected tab of the door's default session and observes it. */
async function openApp(door: McpDoor): Promise<ToolResult> {
  const fixtures = await fixtureServer();
  const opened = await door.call('browser_tabs', { action: 'new', url: fixtures.url('/mcp-app.html') });
  assert.is(opened.isError, false, textOf(opened));
  const observed = await door.call('browser_observe');
  assert.is(observed.isError, false, textOf(observed));
  return observed;
}

/** browser_act's arguments that sign in on the observed login form and wait for the dashboard. */
function signInArgs(observed: ToolResult): Record<string, unknown> {
  const t = tree(observed);
  return {
    state_id: observed.structuredContent!['state_id'],
    actions: [
      { action: 'fill', ref: refIn(t, 'Email address'), text: 'alice@example.com' },
      { action: 'fill', ref: refIn(t, 'Password'), text: SECRET },
      { action: 'click', ref: refIn(t, 'Sign in') },
    ],
    wait_for: { text: 'Welcome, alice' },
  };
}

async function signIn(door: McpDoor): Promise<ToolResult> {
  const result = await door.call('browser_act', signInArgs(await openApp(door)));
  assert.is(result.structuredContent!['status'], 'verified', textOf(result));
  return result;
}

function flows(name: string, open: () => Promise<McpDoor>): void {
  const s = suite(name);
  let door: McpDoor;
  s.before(async () => {
    door = await open();
  });
  s.after(async () => {
    await door?.close();
  });

  s('observe a login form: the tree with refs and the state id in one text block, the observation as structuredContent', async () => {
    const observed = await openApp(door);
    const text = textOf(observed);
    const s = observed.structuredContent!;
    assert.type(s['state_id'], 'string');
    assert.ok(text.includes(`state_id ${String(s['state_id'])}`), text);
    assert.match(text, /textbox "Email address" .*@\d+/);
    assert.match(text, /button "Sign in" @\d+/);
    // The text is the tree and the identifiers, never the structured result again.
    assert.not.ok(text.includes('"elements"'), text);
    assert.ok(Array.isArray(s['elements']) && (s['elements'] as unknown[]).length >= 3);
    // The boxes are four numbers each, which the 2025-era client's draft-07 validator once refused.
    const boxed = await door.call('browser_observe', { include_boxes: true });
    assert.is(boxed.isError, false, textOf(boxed));
    assert.ok(Object.values(boxed.structuredContent!['boxes'] as Record<string, number[]>).every((box) => box.length === 4));
  });

  s('observe with find: one line a match with its path, and browser_act takes its ref without a state_id', async () => {
    await openApp(door);
    const found = await door.call('browser_observe', { find: 'sign in', find_role: 'button' });
    const text = textOf(found);
    assert.is(found.isError, false, text);
    assert.match(text, /^find: 1 match \(the whole page was searched\)$/m);
    assert.match(text, /^(.* › )?button "Sign in" @\d+/m);
    assert.equal((found.structuredContent!['matches'] as Array<{ ref: string }>).map((m) => m.ref), [refIn(text, 'Sign in')]);
    const clicked = await door.call('browser_act', { action: 'click', ref: refIn(text, 'Sign in') });
    assert.is(clicked.isError, false, textOf(clicked));
  });

  s('fill two fields and click with wait_for: verified, with progress, and the password in no content block', async () => {
    const observed = await openApp(door);
    const t = tree(observed);
    const progress: string[] = [];
    const result = await door.call('browser_act', signInArgs(observed), { onprogress: (p) => progress.push(p.message ?? '') });
    const text = textOf(result);
    assert.is(result.isError, false, text);
    assert.is(result.structuredContent!['status'], 'verified');
    assert.match(text, /^act verified: execution completed, postcondition met/);
    assert.match(text, /heading "Welcome, alice"/);
    // Only a stage well before the answer is asserted: the SDK client hands a progress
    // notification to its handler a microtask after reading it, but settles the call at once, so
    // notifications read together with the answer (the wait and the observation, on a loaded
    // machine) are dropped by the client. The wait's own progress is asserted by the cancel test
    // below, where the answer is far behind it.
    assert.ok(progress.includes('action 1 of 3: fill ' + refIn(t, 'Email address')), progress.join(' | '));
    assert.not.ok(JSON.stringify(result).includes(SECRET), 'the typed password appears nowhere in the result');
  });

  s('a reused state is refused as a tool error that keeps the structured result', async () => {
    const observed = await openApp(door);
    const stateId = observed.structuredContent!['state_id'];
    const t = tree(observed);
    const first = await door.call('browser_act', {
      state_id: stateId,
      action: 'fill',
      ref: refIn(t, 'Email address'),
      text: 'bob@example.com',
    });
    assert.is(first.isError, false, textOf(first));
    const again = await door.call('browser_act', {
      state_id: stateId,
      action: 'fill',
      ref: refIn(t, 'Email address'),
      text: 'eve@example.com',
    });
    assert.is(again.isError, true);
    assert.is(again.structuredContent!['status'], 'stale_observation');
    assert.is(again.structuredContent!['error_type'], 'stale_state');
    assert.is(again.structuredContent!['execution'], 'not_dispatched');
    assert.match(textOf(again), /^act stale_observation/);
    assert.match(textOf(again), /Observe again/);
  });

  s('a JSON-RPC error of the wire is a tool error carrying the structured error (matching the output schema)', async () => {
    const result = await door.call('browser_tabs', { action: 'select', target_id: 'no-such-tab' });
    assert.is(result.isError, true);
    assert.is((result.structuredContent!['data'] as Record<string, unknown>)['error_type'], 'target_not_found');
    assert.is(result.structuredContent!['code'], -32005);
    assert.match(textOf(result), /^error target_not_found: /);
    const invalid = await door.call('browser_observe', { max_elements: 0 });
    assert.is(invalid.isError, true);
    assert.is((invalid.structuredContent!['data'] as Record<string, unknown>)['error_type'], 'invalid_params');
    assert.match(textOf(invalid), /- max_elements: /);
  });

  s('a screenshot is an image content block with the size the text names; its bytes travel once, there', async () => {
    await openApp(door);
    const shot = await door.call('browser_screenshot');
    assert.is(shot.isError, false, textOf(shot));
    const image = imageOf(shot);
    assert.is(image.mimeType, 'image/png');
    const png = Buffer.from(image.data!, 'base64');
    assert.equal([...png.subarray(1, 4)], [...Buffer.from('PNG')]);
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    const s = shot.structuredContent!;
    assert.equal(s, { mime: 'image/png', width, height, image_content: 1 }, 'every field of the wire result but the bytes');
    assert.ok(textOf(shot).startsWith(`${width}×${height} image/png of the viewport`), textOf(shot));
    assert.is(occurrences(JSON.stringify(shot), image.data!), 1, 'the base64 appears once in the whole result');
  });

  s('an annotated screenshot names the observation whose refs it drew, and the refs it could not draw', async () => {
    const observed = await openApp(door);
    const ref = refIn(tree(observed), 'Sign in');
    const shot = await door.call('browser_screenshot', { annotate: true });
    assert.is(shot.isError, false, textOf(shot));
    imageOf(shot);
    const s = shot.structuredContent!;
    assert.is(s['state_id'], observed.structuredContent!['state_id']);
    assert.ok(Array.isArray(s['not_drawn']), 'not_drawn is listed');
    assert.match(textOf(shot), new RegExp(`drawn: the refs of state ${String(s['state_id'])}`));
    const only = await door.call('browser_screenshot', { annotate: true, refs: [ref] });
    assert.match(textOf(only), /drawn: 1 of the 1 refs asked/);
    const unknown = await door.call('browser_screenshot', { annotate: true, refs: ['@999'] });
    assert.is(unknown.isError, true);
    assert.match(textOf(unknown), /@999 is not a ref of state/);
  });

  s("an act's screenshot: the bytes in the image block only, structuredContent.screenshot names it", async () => {
    await openApp(door);
    const acted = await door.call('browser_act', { action: 'scroll', delta_y: 40, screenshot: 'always' });
    assert.is(acted.isError, false, textOf(acted));
    const image = imageOf(acted);
    const bytes = Buffer.from(image.data!, 'base64');
    const magic = image.mimeType === 'image/png' ? [0x89, 0x50, 0x4e, 0x47] : [0xff, 0xd8, 0xff];
    assert.equal([...bytes.subarray(0, magic.length)], magic, `a ${String(image.mimeType)}`);
    assert.equal(acted.structuredContent!['screenshot'], { mime: image.mimeType, image_content: 1 });
    assert.is(occurrences(JSON.stringify(acted), image.data!), 1);
    assert.type((acted.structuredContent!['fresh_state'] as Record<string, unknown>)['state_id'], 'string', 'the rest is the wire result');
  });

  s('screenshot "on_error" is isError\'s rule: a condition not met brings the image, a completed act none', async () => {
    await openApp(door);
    const unmet = await door.call('browser_act', {
      action: 'scroll',
      delta_y: 40,
      wait_for: { text: 'never shown anywhere' },
      timeout_ms: 800,
      screenshot: 'on_error',
    });
    assert.is(unmet.isError, true, textOf(unmet));
    assert.is(unmet.structuredContent!['status'], 'condition_not_met');
    imageOf(unmet);
    const fine = await door.call('browser_act', { action: 'scroll', delta_y: 40, screenshot: 'on_error' });
    assert.is(fine.isError, false, textOf(fine));
    assert.is(fine.content.filter((block) => block.type === 'image').length, 0);
  });

  s('a confirm() opened by a click: the act is interrupted, the event is reported, browser_handle_dialog answers it', async () => {
    const signedIn = await signIn(door);
    const act = await door.call('browser_act', {
      state_id: (signedIn.structuredContent!['fresh_state'] as Record<string, unknown>)['state_id'],
      action: 'click',
      ref: refIn(tree(signedIn), 'Delete account'),
    });
    const text = textOf(act);
    assert.is(act.isError, true);
    assert.is(act.structuredContent!['status'], 'interrupted');
    assert.match(text, /confirm dialog open: "Delete the account of alice\?"/);
    assert.match(text, /browser_handle_dialog/);
    const handled = await door.call('browser_handle_dialog', { accept: true });
    assert.is(handled.isError, false, textOf(handled));
    assert.is(handled.structuredContent!['action'], 'accepted');
    assert.is(handled.structuredContent!['dialog_type'], 'confirm');
    const after = await door.call('browser_observe');
    assert.match(textOf(after), /Account deleted\./);
  });

  s('a file chooser opened by a click is answered with browser_file_upload', async () => {
    const signedIn = await signIn(door);
    const act = await door.call('browser_act', { action: 'click', ref: refIn(tree(signedIn), 'Attach a file') });
    assert.match(textOf(act), /file chooser \(select_single[^)]*\).*browser_file_upload/, textOf(act));
    const upload = await door.call('browser_file_upload', { paths: [REPORT] });
    assert.is(upload.isError, false, textOf(upload));
    assert.is(upload.structuredContent!['uploaded_count'], 1);
    const after = await door.call('browser_observe');
    assert.match(textOf(after), /Attached report\.txt \(18 bytes\)\./);
  });

  s('cancelling a running act frees the session within a second', async () => {
    const signedIn = await signIn(door);
    const controller = new AbortController();
    let waiting!: () => void;
    const waited = new Promise<void>((resolve) => (waiting = resolve));
    const running = door
      .call(
        'browser_act',
        { action: 'click', ref: refIn(tree(signedIn), 'Sync now'), wait_for: { text: 'Synced' }, timeout_ms: 30_000 },
        {
          signal: controller.signal,
          onprogress: (p) => {
            if (p.message === 'waiting for the wait_for condition') waiting();
          },
        },
      )
      .then(
        () => 'answered',
        () => 'rejected',
      );
    await waited;
    const cancelledAt = Date.now();
    controller.abort('the user stopped it');
    assert.is(await running, 'rejected');
    const observed = await door.call('browser_observe');
    const took = Date.now() - cancelledAt;
    assert.is(observed.isError, false);
    assert.match(textOf(observed), /Syncing…/);
    assert.ok(took < 1000, `the session was free ${took} ms after the cancellation`);
  });

  s.run();
}

flows('mcp: SDK v2 over Streamable HTTP (2026-07-28)', async () => v2Http(`${(await httpServer()).server.mcpUrl}?token=${TOKEN_V2}`));
// The 2025 client presents the token as a Bearer header instead of ?token=.
flows(
  'mcp: SDK v1 over Streamable HTTP (2025)',
  async () => v1Http((await httpServer()).server.mcpUrl, { headers: { Authorization: `Bearer ${TOKEN_V1}` } }),
);
flows('mcp: SDK v2 over stdio (pagewire mcp)', () => v2Stdio(['--uploads', uploads]));

const http = suite('mcp: over HTTP, beside the WebSocket');

/** A v2 door of its own (the TOKEN_V2 principal) for one test. */
async function withDoor(test: (door: McpDoor, server: TestServer) => Promise<void>): Promise<void> {
  const server = await httpServer();
  const door = await v2Http(`${server.server.mcpUrl}?token=${TOKEN_V2}`);
  try {
    await test(door, server);
  } finally {
    await door.close();
  }
}

http(
  'an act without state_id takes the last observation MCP gave this principal, and is stale once any door observed the tab since',
  () =>
    withDoor(async (door, server) => {
      const observed = await openApp(door);
      const email = refIn(tree(observed), 'Email address');
      const first = await door.call('browser_act', { action: 'fill', ref: email, text: 'carol@example.com' });
      assert.is(first.isError, false, textOf(first));
      assert.is(first.structuredContent!['status'], 'completed');
      // The same principal observes the tab over the WebSocket: that observation was not handed
      // over MCP, so an act without state_id must not switch to it.
      const ws = await server.connect();
      const fresh = first.structuredContent!['fresh_state'] as Record<string, unknown>;
      await ws.call('observe', { session_id: fresh['session_id'], target_id: fresh['target_id'] });
      ws.close();
      const stale = await door.call('browser_act', { action: 'fill', ref: email, text: 'dave@example.com' });
      assert.is(stale.isError, true);
      assert.is(stale.structuredContent!['error_type'], 'stale_state');
    }),
);

http(
  'one call opens a page: browser_act navigate before any observation, and browser_tabs new, each answer with the page',
  () =>
    withDoor(async (door) => {
      const fixtures = await fixtureServer();
      const created = await door.call('browser_session', { action: 'create', name: 'first-call' });
      const sessionId = created.structuredContent!['session_id'];
      try {
        const navigated = await door.call('browser_act', {
          session_id: sessionId,
          action: 'navigate',
          url: fixtures.url('/autosave.html'),
        });
        assert.is(navigated.isError, false, textOf(navigated));
        assert.is(navigated.structuredContent!['status'], 'completed');
        assert.match(textOf(navigated), /button "Save draft"/);
        const opened = await door.call('browser_tabs', { session_id: sessionId, action: 'new', url: fixtures.url('/order-status.html') });
        assert.is(opened.isError, false, textOf(opened));
        // The new tab's id is said once, in its observation; the session was named by the navigate.
        const newTab = String(opened.structuredContent!['target_id']);
        assert.is(
          textOf(opened).split('\n').slice(0, 2).join('\n'),
          `opened a tab\nstate_id ${
            String(
              (opened.structuredContent!['observation'] as Record<string, unknown>)['state_id'],
            )
          } · tab ${newTab}`,
        );
        assert.match(textOf(opened), /button "Ship order"/);
        // Its observation was handed over: an act without state_id acts on it.
        const acted = await door.call('browser_act', { session_id: sessionId, action: 'scroll', delta_y: 0 });
        assert.is(acted.structuredContent!['status'], 'completed', textOf(acted));
        // Ids already said are not repeated: the same tab and session again name only the state.
        assert.not.ok(textOf(acted).includes(newTab), textOf(acted));
        assert.not.ok(textOf(acted).includes(String(sessionId)), textOf(acted));
      } finally {
        await door.call('browser_session', { action: 'close', session_id: sessionId });
      }
    }),
);

http(
  'browser_wait waits for text the page shows later and answers with its observation; one that runs out is a tool error with one',
  () =>
    withDoor(async (door) => {
      const fixtures = await fixtureServer();
      const opened = await door.call('browser_tabs', { action: 'new', url: fixtures.url('/autosave.html') });
      assert.is(opened.isError, false, textOf(opened));
      const met = await door.call('browser_wait', { text: 'Draft restored', timeout_ms: 10_000 });
      assert.is(met.isError, false, textOf(met));
      assert.is(met.structuredContent!['status'], 'met');
      assert.match(textOf(met), /^wait met\n/);
      assert.match(textOf(met), /Draft restored/);
      const unmet = await door.call('browser_wait', { text: 'Published', timeout_ms: 500 });
      assert.is(unmet.isError, true);
      assert.is(unmet.structuredContent!['status'], 'condition_not_met');
      assert.match(textOf(unmet), /button "Save draft"/);
    }),
);

http(
  'a screenshot larger than host image limits is scaled down in the browser, and the text gives the scale',
  () =>
    withDoor(async (door) => {
      const created = await door.call('browser_session', { action: 'create', name: 'wide', viewport: { width: 2400, height: 1600 } });
      const sessionId = created.structuredContent!['session_id'];
      const fixtures = await fixtureServer();
      await door.call('browser_tabs', { session_id: sessionId, action: 'new', url: fixtures.url('/mcp-app.html') });
      const shot = await door.call('browser_screenshot', { session_id: sessionId });
      const s = shot.structuredContent!;
      const png = Buffer.from(imageOf(shot).data!, 'base64');
      const width = png.readUInt32BE(16);
      const height = png.readUInt32BE(20);
      assert.ok(width <= 1568 && height <= 1568, `${width}×${height}`);
      assert.ok(width * height <= 1_150_000, `${width * height} px`);
      assert.ok(Math.abs(width / height - 1.5) < 0.01, `the aspect ratio stays (${width}×${height})`);
      assert.is(s['scale'], Math.floor(Math.sqrt(1_150_000 / (2400 * 1600)) * 1000) / 1000);
      assert.match(textOf(shot), new RegExp(`scaled down by ${String(s['scale'])}`));
      await door.call('browser_session', { action: 'close', session_id: sessionId });
    }),
);

http(
  "tools/list: eleven tools, honest annotations, and names + descriptions + input schemas under 9.6 KB (0.55× Playwright MCP's)",
  () =>
    withDoor(async (door) => {
      const tools = await door.listTools();
      assert.equal(
        tools.map((tool) => tool['name']),
        [
          'browser_observe',
          'browser_act',
          'browser_wait',
          'browser_tabs',
          'browser_screenshot',
          'browser_pdf',
          'browser_handle_dialog',
          'browser_file_upload',
          'browser_cancel',
          'browser_session',
          'browser_events',
        ],
      );
      const listed = JSON.stringify(
        tools.map((tool) => ({ name: tool['name'], description: tool['description'], inputSchema: tool['inputSchema'] })),
      );
      const bytes = Buffer.byteLength(listed);
      console.log(`  tools/list names + descriptions + input schemas: ${bytes} bytes for ${tools.length} tools`);
      assert.ok(bytes < 9600, `${bytes} bytes`);
      const hints = Object.fromEntries(tools.map((tool) => [tool['name'], tool['annotations'] as Record<string, boolean>]));
      assert.is(hints['browser_observe']!['readOnlyHint'], true);
      assert.is(hints['browser_screenshot']!['readOnlyHint'], true);
      assert.is(hints['browser_pdf']!['readOnlyHint'], false, 'it writes a file');
      assert.is(hints['browser_act']!['readOnlyHint'], false);
      assert.is(hints['browser_act']!['destructiveHint'], true);
      assert.is(hints['browser_events']!['openWorldHint'], false);
      for (const tool of tools) {
        const a = tool['annotations'] as Record<string, unknown>;
        for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
          assert.type(a[hint], 'boolean', `${String(tool['name'])} ${hint}`);
        }
      }
      // The screenshot's outputSchema is the wire result's, with image_content where the bytes were.
      const output = tools.find((tool) => tool['name'] === 'browser_screenshot')!['outputSchema'] as { anyOf: JsonObject[] };
      const fields = output.anyOf[0]!['properties'] as JsonObject;
      assert.equal(Object.keys(fields).sort(), ['height', 'image_content', 'mime', 'not_drawn', 'scale', 'state_id', 'width']);
      assert.equal(output.anyOf[0]!['required'], ['mime', 'width', 'height', 'image_content']);
    }),
);

http(
  "browser_events lists the session's events after a seq (every kind, or the kinds asked for) and its downloads",
  () =>
    withDoor(async (door) => {
      const signedIn = await signIn(door);
      await door.call('browser_act', { action: 'click', ref: refIn(tree(signedIn), 'Delete account') });
      await door.call('browser_handle_dialog', { accept: false });
      const all = await door.call('browser_events');
      assert.is(all.isError, false, textOf(all));
      const s = all.structuredContent!;
      type Listed = Array<{ seq: number; kind: string; data: Record<string, unknown> }>;
      // As many as the result's byte budget holds (PROTOCOL.md §14); the rest after more_after_seq.
      const more = s['more_after_seq'] as number | undefined;
      const first = s['events'] as Listed;
      assert.is(more ?? s['last_seq'], first.at(-1)!.seq);
      if (more !== undefined) assert.match(textOf(all), new RegExp(`\\nmore: browser_events \\{after_seq: ${more}\\}$`));
      const next = more === undefined ? undefined : await door.call('browser_events', { after_seq: more });
      const rest = (next?.structuredContent?.['events'] ?? []) as Listed;
      assert.ok(more === undefined || (rest.length > 0 && rest[0]!.seq > more));
      const events = [...first, ...rest];
      assert.ok(events.some((e) => e.kind === 'navigation'), 'navigations are listed here (not in the per-call news)');
      const dialogs = events.filter((e) => e.kind === 'dialog');
      assert.ok(dialogs.some((e) => e.data['message'] === 'Delete the account of alice?'), JSON.stringify(dialogs));
      assert.equal(s['downloads'], []);
      const listedIn = first.includes(dialogs[0]!) ? all : next!;
      assert.match(textOf(listedIn), new RegExp(`#${dialogs[0]!.seq} dialog`));
      const after = await door.call('browser_events', { after_seq: s['last_seq'] });
      assert.equal(after.structuredContent!['events'], []);
      const onlyDialogs = await door.call('browser_events', { kinds: ['dialog'] });
      assert.ok((onlyDialogs.structuredContent!['events'] as Array<{ kind: string }>).every((e) => e.kind === 'dialog'));
      const invalid = await door.call('browser_events', { kinds: ['nope'] });
      assert.is(invalid.isError, true);
      assert.is((invalid.structuredContent!['data'] as Record<string, unknown>)['error_type'], 'invalid_params');
    }),
);

/** The tools of the instance the host makes for a request with these headers (2026-07-28 era). */
async function toolsOfInstance(server: TestServer, headers: Record<string, string>): Promise<string[]> {
  const instance = await server.server.mcp.factory({
    era: 'modern',
    authInfo: { token: 'token-1', clientId: 'token-1', scopes: [] },
    requestInfo: new Request('http://localhost/mcp', { method: 'POST', headers: { 'mcp-protocol-version': '2026-07-28', ...headers } }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'instance-probe', version: '1.0.0' });
  await instance.connect(serverSide);
  await client.connect(clientSide);
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
    await instance.close();
  }
}

http(
  'a tools/call request gets an instance with only the tool it calls; a listing, or a name the host does not know, all eleven',
  async () => {
    const server = await httpServer();
    assert.equal(await toolsOfInstance(server, { 'mcp-method': 'tools/call', 'mcp-name': 'browser_observe' }), ['browser_observe']);
    assert.equal((await toolsOfInstance(server, { 'mcp-method': 'tools/list' })).length, 11);
    assert.equal((await toolsOfInstance(server, { 'mcp-method': 'tools/call', 'mcp-name': 'browser_nope' })).length, 11);
  },
);

http(
  'a tools/call whose Mcp-Name header names another tool than its body is refused before any tool runs',
  () =>
    withDoor(async (door, server) => {
      await openApp(door);
      const selectedUrl = async () => {
        const listed = await door.call('browser_tabs', { action: 'list' });
        return (listed.structuredContent!['tabs'] as Array<{ url: string; selected: boolean }>).find((tab) => tab.selected)?.url;
      };
      const before = await selectedUrl();
      assert.match(String(before), '/mcp-app.html');
      const response = await fetch(`${server.server.mcpUrl}?token=${TOKEN_V2}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'browser_observe',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: 'browser_act',
            arguments: { action: 'navigate', url: 'about:blank' },
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          },
        }),
      });
      const answer = (await response.json()) as { error?: { message: string } };
      assert.is(response.status, 400);
      assert.match(String(answer.error?.message), 'Mcp-Name');
      // Nothing ran: the tab did not navigate.
      assert.is(await selectedUrl(), before);
    }),
);

/**
 * Starts a long act of the TOKEN_V1 principal on a connection of its own (a 2025-era session
 * spoken by hand, or one 2026-07-28 request), drops that connection while the act waits on its
 * condition, and answers what `browser_cancel` then finds: `idle` if the drop cancelled the act.
 */
async function dropRunningAct(revision: '2025-06-18' | '2026-07-28'): Promise<string> {
  const server = await httpServer();
  const door = await v1Http(server.server.mcpUrl, { headers: { Authorization: `Bearer ${TOKEN_V1}` } });
  try {
    const signedIn = await signIn(door);
    const url = `${server.server.mcpUrl}?token=${TOKEN_V1}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const _meta: Record<string, unknown> = { progressToken: 'sync' };
    if (revision === '2025-06-18') {
      const init = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'dropper', version: '1.0.0' } },
        }),
      });
      Object.assign(headers, { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': revision });
      await init.text();
      const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await (await fetch(url, { method: 'POST', headers, body: initialized })).text();
    } else {
      Object.assign(headers, { 'mcp-protocol-version': revision, 'mcp-method': 'tools/call', 'mcp-name': 'browser_act' });
      Object.assign(_meta, {
        'io.modelcontextprotocol/protocolVersion': revision,
        'io.modelcontextprotocol/clientInfo': { name: 'dropper', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      });
    }
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'browser_act',
        arguments: { action: 'click', ref: refIn(tree(signedIn), 'Sync now'), wait_for: { text: 'Synced' }, timeout_ms: 30_000 },
        _meta,
      },
    });
    await dropMidCall(
      new URL(url),
      { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      body,
      'waiting for the wait_for condition',
    );
    const cancelled = await door.call('browser_cancel');
    assert.is(cancelled.isError, false, textOf(cancelled));
    // Whatever was running is stopped now: the session serves the next call.
    const observed = await door.call('browser_observe');
    assert.is(observed.isError, false, textOf(observed));
    return String(cancelled.structuredContent!['status']);
  } finally {
    await door.close();
  }
}

http(
  'a 2025-era client whose HTTP connection drops mid-call has not cancelled it (2025-06-18: only notifications/cancelled does)',
  async () => {
    assert.is.not(await dropRunningAct('2025-06-18'), 'idle', 'the act was still running after the drop');
  },
);

http('a 2026-07-28 request whose HTTP connection drops mid-call is cancelled (the close is its cancellation)', async () => {
  assert.is(await dropRunningAct('2026-07-28'), 'idle', 'the drop had cancelled the act');
});

/**
 * POSTs `body` on a socket of its own, reads the answer until it holds `until`, then ends the
 * connection and resolves once the server has closed its side (so it has seen the drop).
 */
function dropMidCall(url: URL, headers: Record<string, string>, body: string, until: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let seen = '';
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(until)) socket.end();
    });
    socket.on('close', () => (seen.includes(until) ? resolve(seen) : reject(new Error(`closed before ${until}: ${seen}`))));
    const lines = [
      `POST ${url.pathname}${url.search} HTTP/1.1`,
      `Host: ${url.host}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  });
}

/** A raw HTTP exchange, so the Host header can be anything. */
function post(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    );
  });
}

http('/mcp answers 401 without the token and 403 to a foreign Origin or Host, before any MCP is spoken', async () => {
  const server = await httpServer();
  const url = server.server.mcpUrl;
  const missing = await post(url, {});
  assert.is(missing.status, 401);
  assert.is(missing.headers['www-authenticate'], 'Bearer');
  assert.not.ok(missing.body.includes('jsonrpc'), missing.body);
  assert.is((await post(`${url}?token=wrong`, {})).status, 401);
  assert.is((await post(url, { authorization: 'Bearer wrong' })).status, 401);
  const origin = await post(`${url}?token=${TOKEN_V2}`, { origin: 'http://evil.example' });
  assert.is(origin.status, 403);
  assert.not.ok(origin.body.includes('jsonrpc'), origin.body);
  const host = await post(`${url}?token=${TOKEN_V2}`, { host: `evil.example:${new URL(url).port}` });
  assert.is(host.status, 403);
  const ok = await post(`${url}?token=${TOKEN_V2}`, {});
  assert.is(ok.status, 200, ok.body);
  assert.match(ok.body, 'protocolVersion');
});

http('/mcp answers 413 to a body past 4 MiB, without reading the rest, and serves the next request', async () => {
  const server = await httpServer();
  const url = `${server.server.mcpUrl}?token=${TOKEN_V2}`;
  const big = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { padding: 'x'.repeat(4 * 1024 * 1024) } }),
  });
  assert.is(big.status, 413);
  assert.match(await big.text(), 'too large');
  assert.is((await post(url, {})).status, 200);
});

http.run();

/** 'exited' once the process has, or 'running' when it still runs after `ms`. */
async function exitedWithin(door: StdioDoor, ms: number): Promise<'exited' | 'running'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'running'>((resolve) => (timer = setTimeout(() => resolve('running'), ms)));
  try {
    return await Promise.race([door.exited.then(() => 'exited' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

const stdio = suite('mcp: the pagewire mcp process');

stdio.before(() => {
  if (!IS_DENO) assert.ok(existsSync(`${ROOT}dist/src/main.js`), 'dist/src/main.js is missing: run `npm run build`');
});

stdio('launches the browser lazily, and exits 0 with no Chromium left when the client closes stdin', async () => {
  const door = await v2Stdio();
  assert.is(descendants(door.pid).length, 0, 'no browser before a call needs one');
  const observed = await door.call('browser_observe');
  assert.is(observed.isError, false, textOf(observed));
  const browsers = descendants(door.pid).map((p) => p.pid);
  assert.ok(browsers.length > 0, 'a browser runs under pagewire mcp');
  // Only stdin closes (the SDK client's close() would also send SIGTERM after a while).
  door.endStdin();
  await door.exited;
  if (!IS_DENO) assert.is(door.exitCode(), 0);
  assert.equal(await waitUntilGone(browsers, 10_000), [], 'every browser process is gone');
  await door.close();
});

/**
 * Starts `pagewire mcp` with a browser, lets `leave` end the host's side, and checks that the
 * process exits 0 within 15 s and leaves no browser process.
 */
async function leavesNothing(leave: (door: StdioDoor) => Promise<void> | void, why: string): Promise<void> {
  const door = await v2Stdio();
  await door.call('browser_observe');
  const browsers = descendants(door.pid).map((p) => p.pid);
  assert.ok(browsers.length > 0);
  await leave(door);
  assert.is(await exitedWithin(door, 15_000), 'exited', why);
  if (!IS_DENO) assert.is(door.exitCode(), 0);
  assert.equal(await waitUntilGone(browsers, 10_000), [], 'every browser process is gone');
  await door.close().catch(() => {});
}

stdio('exits 0 with no Chromium left when nothing reads its stdout any more', () =>
  leavesNothing((door) => {
    // The host's reading end is gone while stdin stays open: the next answer cannot be written.
    door.dropStdout();
    void door.call('browser_observe').catch(() => {});
  }, 'pagewire mcp stops once its answers cannot reach the host'));

stdio(
  'a message too long for the SDK does not hide the host going away: exits 0 with no Chromium left',
  () =>
    leavesNothing(async (door) => {
      // Past the SDK's 10 MB read buffer its transport closes (and would pause stdin); then the host leaves.
      await door.writeStdin('x'.repeat(11 * 1024 * 1024));
      door.endStdin();
    }, 'pagewire mcp sees its stdin end'),
);

stdio('SIGTERM: exits with no Chromium left', async () => {
  const door = await v2Stdio();
  await door.call('browser_observe');
  const browsers = descendants(door.pid).map((p) => p.pid);
  assert.ok(browsers.length > 0);
  process.kill(door.pid, 'SIGTERM');
  await door.exited;
  if (!IS_DENO) assert.is(door.exitCode(), 0);
  assert.equal(await waitUntilGone(browsers, 10_000), [], 'every browser process is gone');
  await door.close();
});

stdio.run();
