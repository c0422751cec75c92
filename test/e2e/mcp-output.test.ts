// Every MCP tool's output schema (PROTOCOL.md §14) against pagewire's own results, in the
// validators of both SDK generations: the 2025-era client (SDK 1.x) validates with Ajv's draft-07,
// the 2026-era one with Ajv's 2020-12 (Node) or cfworker's (browsers). A tour of real calls on real
// Chromium gathers each tool's results, success and failure alike (an observation with boxes, an
// act with a hit and a screenshot, a PDF, dialogs, popups, downloads, a file chooser, wire errors); the
// client that gathers them checks nothing itself, so every validator's verdict is seen.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AjvJsonSchemaValidator as V2Ajv } from '@modelcontextprotocol/client/validators/ajv';
import { CfWorkerJsonSchemaValidator as V2CfWorker } from '@modelcontextprotocol/client/validators/cf-worker';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { AjvJsonSchemaValidator as V1Ajv } from '@modelcontextprotocol/sdk/validation/ajv';
import { TOOLS } from '../../src/mcp/tools.ts';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { type McpDoor, refIn, textOf, type ToolResult, v1Http } from '../helpers/mcp.ts';
import { startTestServer } from '../helpers/pagewire.ts';
import { onTeardown } from '../helpers/teardown.ts';

const uploads = mkdtempSync(join(tmpdir(), 'pagewire-mcp-output-'));
const REPORT = join(uploads, 'report.txt');
writeFileSync(REPORT, 'quarterly numbers\n');
onTeardown(() => rmSync(uploads, { recursive: true, force: true }));

interface Validator {
  getValidator(schema: Record<string, unknown>): (input: unknown) => { valid: boolean; errorMessage?: string | undefined };
}

/** Each client's default validator, as that client builds it. */
const VALIDATORS: Array<[string, Validator]> = [
  ['SDK 1.x (Ajv, draft-07)', new V1Ajv() as unknown as Validator],
  ['SDK 2.x (Ajv, 2020-12)', new V2Ajv() as unknown as Validator],
  ['SDK 2.x in browsers (cfworker, 2020-12)', new V2CfWorker() as unknown as Validator],
];

/** A validator that accepts everything: the gathering client leaves the verdicts to the test. */
const acceptAll: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => (input) => ({ valid: true, data: input as T, errorMessage: undefined }),
};

const s = suite('mcp: every output schema takes the real results, in both SDK generations');

s('a tour of every tool: each structured result validates in draft-07 and 2020-12 alike', async () => {
  const server = await startTestServer(['--uploads', uploads]);
  const fixtures = await fixtureServer();
  const door: McpDoor = await v1Http(server.server.mcpUrl, { headers: { Authorization: `Bearer ${server.token}` } }, {
    jsonSchemaValidator: acceptAll,
  });
  // As a host lists them: each tool's output schema.
  const schemas = new Map((await door.listTools()).map((tool) => [String(tool['name']), tool['outputSchema'] as Record<string, unknown>]));
  const results: Array<{ tool: string; args: Record<string, unknown>; result: ToolResult }> = [];
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const result = await door.call(tool, args);
    results.push({ tool, args, result });
    return result;
  };
  const stateOf = (result: ToolResult) =>
    String(
      (result.structuredContent!['fresh_state'] as Record<string, unknown> | undefined)?.['state_id'] ??
        result.structuredContent!['state_id'],
    );
  const treeOf = (result: ToolResult) =>
    String(
      (result.structuredContent!['fresh_state'] as Record<string, unknown> | undefined)?.['tree'] ?? result.structuredContent!['tree'],
    );
  try {
    const created = await call('browser_session', { action: 'create', name: 'output-schemas', viewport: { width: 900, height: 600 } });
    await call('browser_session', { action: 'list' });
    const opened = await call('browser_tabs', { action: 'new', url: fixtures.url('/act.html') });
    const first = String(opened.structuredContent!['target_id']);
    await call('browser_tabs', { action: 'list' });
    await call('browser_tabs', { action: 'frames' });
    await call('browser_tabs', { action: 'select', target_id: first });

    const boxed = await call('browser_observe', { include_boxes: true });
    const boxes = Object.values(boxed.structuredContent!['boxes'] as Record<string, number[]>);
    assert.ok(boxes.length > 0 && boxes.every((box) => box.length === 4), 'boxes of four numbers');
    await call('browser_observe', { max_elements: 2 });
    let o = await call('browser_observe');
    const clicked = await call('browser_act', { state_id: stateOf(o), action: 'click', ref: refIn(treeOf(o), 'Count') });
    assert.is(clicked.structuredContent!['status'], 'completed', textOf(clicked));
    await call('browser_observe', { since: stateOf(o) });
    o = await call('browser_observe');
    const covered = await call('browser_act', {
      state_id: stateOf(o),
      action: 'click',
      ref: refIn(treeOf(o), 'Covered'),
      screenshot: 'on_error',
    });
    assert.is(covered.structuredContent!['error_type'], 'click_intercepted', textOf(covered));
    assert.ok(covered.structuredContent!['hit'] && covered.structuredContent!['screenshot'], 'a hit and a screenshot');
    const stale = await call('browser_act', { state_id: stateOf(o), action: 'click', ref: refIn(treeOf(o), 'Count') });
    assert.is(stale.structuredContent!['status'], 'stale_observation');
    o = await call('browser_observe');
    const confirmed = await call('browser_act', { state_id: stateOf(o), action: 'click', ref: refIn(treeOf(o), 'Confirm') });
    assert.is(confirmed.structuredContent!['status'], 'interrupted', textOf(confirmed));
    await call('browser_handle_dialog', { accept: true });
    await call('browser_handle_dialog', { accept: true }); // nothing pending: no_modal
    o = await call('browser_observe');
    await call('browser_act', { state_id: stateOf(o), action: 'click', ref: refIn(treeOf(o), 'Open in new tab') });
    o = await call('browser_observe');
    await call('browser_act', { state_id: stateOf(o), action: 'click', ref: refIn(treeOf(o), 'Download report') });

    o = await call('browser_act', { action: 'navigate', url: fixtures.url('/mcp-app.html') });
    const signedIn = await call('browser_act', {
      state_id: stateOf(o),
      actions: [
        { action: 'fill', ref: refIn(treeOf(o), 'Email address'), text: 'alice@example.com' },
        { action: 'fill', ref: refIn(treeOf(o), 'Password'), text: 'not-a-secret' },
        { action: 'click', ref: refIn(treeOf(o), 'Sign in') },
      ],
      wait_for: { text: 'Welcome, alice' },
    });
    assert.is(signedIn.structuredContent!['status'], 'verified', textOf(signedIn));
    const chooser = await call('browser_act', {
      state_id: stateOf(signedIn),
      action: 'click',
      ref: refIn(treeOf(signedIn), 'Attach a file'),
    });
    assert.match(textOf(chooser), /file chooser/);
    await call('browser_file_upload', { paths: [REPORT] });

    await call('browser_screenshot');
    o = await call('browser_observe');
    await call('browser_screenshot', { ref: refIn(treeOf(o), 'Delete account') });
    await call('browser_screenshot', { full_page: true });
    await call('browser_screenshot', { annotate: true });
    await call('browser_pdf', { paper: 'a4', ranges: '1' });
    await call('browser_pdf', { ranges: 'first' });
    await call('browser_cancel');
    await call('browser_wait', { text: 'Delete account', timeout_ms: 5_000 });
    await call('browser_wait', { selector: '#never-there', timeout_ms: 200 });
    await call('browser_events');
    await call('browser_events', { kinds: ['dialog', 'download'] });
    await call('browser_tabs', { action: 'select', target_id: 'no-such-tab' });
    await call('browser_observe', { max_elements: 0 });
    await call('browser_session', { action: 'close', session_id: created.structuredContent!['session_id'] });
  } finally {
    await door.close();
  }

  const toured = new Set(results.map(({ tool }) => tool));
  assert.equal(TOOLS.map((tool) => tool.name).filter((name) => !toured.has(name)), [], 'every tool was called');
  assert.ok(results.some(({ result }) => result.isError) && results.some(({ result }) => !result.isError), 'errors and successes');
  const refused: string[] = [];
  for (const [name, validator] of VALIDATORS) {
    for (const { tool, args, result } of results) {
      assert.ok(result.structuredContent, `${tool} ${JSON.stringify(args)} has structured content`);
      const verdict = validator.getValidator(schemas.get(tool)!)(result.structuredContent);
      if (!verdict.valid) refused.push(`${name}: ${tool} ${JSON.stringify(args)}: ${verdict.errorMessage}`);
    }
  }
  assert.equal(refused, [], refused.join('\n'));
});

s.run();
