// observe {format: "markdown"} against real-looking pages (PROTOCOL.md §6, docs/markdown.md).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import type { FixtureServer } from '../helpers/fixture-server.ts';
import { evaluate } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { openAlone, withSession } from '../helpers/session-suite.ts';
import { textOf, v2Http } from '../helpers/mcp.ts';
import { onTeardown } from '../helpers/teardown.ts';
import type { Observation } from '../helpers/wire.ts';

const s = suite('markdown');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;
let sessionId: string;

withSession(s, 'markdown', (context) => ({ server, fixtures, client, sessionId } = context));

function observe(params: Record<string, unknown> = {}): Promise<Observation> {
  return client.call('observe', { session_id: sessionId, format: 'markdown', ...params });
}

/**
 * Opens `path` alone in the session, once its window has loaded: until its stylesheets are in,
 * the page is not laid out and few of its elements are there to get refs.
 */
async function open(path: string): Promise<string> {
  const targetId = await openAlone({ server, fixtures, client, sessionId }, path);
  await evaluate(
    server,
    targetId,
    "new Promise((resolve) => document.readyState === 'complete' ? resolve(true) : addEventListener('load', () => resolve(true), { once: true }))",
  );
  return targetId;
}

const refOf = (o: Observation, role: string, name: string) => o.elements.find((e) => e.role === role && e.name === name)?.ref;

s('headings, paragraphs, nested lists, a table and a code block read as Markdown; the tree is left out', async () => {
  await open('/release-notes.html');
  const o = await observe();
  const md = o.markdown!;
  assert.is(o.tree, '');
  assert.ok(md.includes('# Release notes 4.2 stable\n'), md);
  assert.ok(md.includes('\n\n## What changed\n\n'), md);
  assert.ok(
    md.includes('Version 4.2 makes exports **twice as fast** and adds *scheduled* reports. Read the [migration guide]('),
    md,
  );
  assert.ok(
    md.includes(
      '- Exports stream rows as they are read.\n- Reports can run on a schedule:\n  1. daily at a time of day;\n  2. weekly on a weekday.\n- The `--format` flag accepts `csv|json`.',
    ),
    md,
  );
  assert.ok(
    md.includes(
      '| Plan | Exports per day | Formats |\n| --- | --- | --- |\n| Free | 10 | csv |\n| Team | 500 | csv \\| json |\n| Enterprise | unlimited | csv \\| json \\| parquet |',
    ),
    md,
  );
  const source = await evaluate<string>(server, o.target_id, `document.querySelector('pre.shiki').textContent`);
  assert.ok(md.includes('```ts\n' + source + '\n```'), md);
  assert.not.match(md, /tok-|<span/);
});

s('navigation, the header, the sidebar and the footer fold to one line each; content outside main is left out', async () => {
  await open('/release-notes.html');
  const o = await observe();
  const lines = o.markdown!.split('\n');
  const header = lines.filter((line) => line.includes('Pricing'));
  assert.equal(header, [
    `[header: 5 links — [Widgets Cloud](${refOf(o, 'link', 'Widgets Cloud')}) [Pricing](${refOf(o, 'link', 'Pricing')}) [Docs](${
      refOf(o, 'link', 'Docs')
    }) [Blog](${refOf(o, 'link', 'Blog')}) [Sign in](${refOf(o, 'link', 'Sign in')})]`,
  ]);
  assert.equal(lines.filter((line) => line.includes('[3.9]')), [
    `[aside: 8 links — [4.2](@6) [4.1](@7) [4.0](@8) [3.9](@9) [3.8](@10) [3.7](@11) … 2 more]`.replace(/@(\d+)/g, (_, n) => {
      const name = ['4.2', '4.1', '4.0', '3.9', '3.8', '3.7'][Number(n) - 6]!;
      return refOf(o, 'link', name)!;
    }),
  ]);
  assert.ok(lines.at(-1)!.startsWith('[footer: 3 links — [Privacy]('), lines.at(-1));
  assert.is(lines.filter((line) => line.includes('Privacy')).length, 1);
  assert.ok(!o.markdown!.includes('3.5'), 'past the items shown, a fold only counts');
});

s("a link's inline ref acts with the observation's state_id", async () => {
  await open('/release-notes.html');
  const o = await observe();
  const ref = /\[migration guide\]\((@\d+)\)/.exec(o.markdown!)?.[1];
  assert.ok(ref, o.markdown);
  assert.is(ref, refOf(o, 'link', 'migration guide'), 'the same ref as the state');
  const acted = await client.call('act', { session_id: sessionId, state_id: o.state_id, action: 'click', ref });
  assert.ok(['completed', 'verified'].includes(acted.status), JSON.stringify(acted));
  const after = await observe();
  assert.is(after.url, fixtures.url('/child.html'));
});

s('every ref in the markdown is a ref of the state, named as in elements', async () => {
  await open('/docs-code.html');
  const o = await observe({ max_elements: 500 });
  const inline = [...o.markdown!.matchAll(/\[((?:\\.|[^[\]\\])*)\]\((@\d+)\)/g)];
  assert.ok(inline.length > 10, o.markdown);
  const byRef = new Map(o.elements.map((e) => [e.ref, e]));
  for (const [, label, ref] of inline) {
    const element = byRef.get(ref!);
    assert.ok(element, `${ref} is in elements`);
    const name = label!.replace(/\\([[\]])/g, '$1');
    assert.ok(name === element!.name || name.startsWith(`${element!.role}: ${element!.name}`), `${name} / ${JSON.stringify(element)}`);
  }
  assert.is(new Set(inline.map((m) => m[2])).size, inline.length, 'one mention a ref');
});

s('code blocks are their source text: highlighting, line-number gutters and hidden tab panels gone', async () => {
  const targetId = await open('/docs-code.html');
  const md = (await observe()).markdown!;
  const sources = await evaluate<Array<[string, string]>>(
    server,
    targetId,
    `[...document.querySelectorAll('pre')].filter((pre) => pre.checkVisibility() && !pre.closest('.linenos'))
      .map((pre) => [(/language-(\\w+)/.exec(pre.className) ?? /highlight-(\\w+)/.exec(pre.closest('[class*=highlight-]')?.className ?? ''))?.[1] ?? '', pre.textContent.replace(/^\\n+|\\s+$/g, '')])`,
  );
  assert.is(sources.length, 5);
  for (const [language, source] of sources) {
    assert.ok(md.includes('```' + language + '\n' + source + '\n```'), `${language}: ${source}\n---\n${md}`);
  }
  assert.not.match(md, /token|line-numbers|```[a-z]*\n1\n2/);
  assert.ok(!md.includes('list_orders'), 'the hidden Python tab is not shown');
  assert.ok(!md.includes('[#]') && !md.includes('Direct link to'), 'permalinks are left out');
  assert.ok(md.includes('## Install the SDK\n'), md);
  assert.ok(md.includes('Call `listOrders()` with a customer id'), md);
});

s("neither a filled text field's value nor a password's is in the markdown", async () => {
  await open('/release-notes.html');
  const o = await observe();
  const email = refOf(o, 'textbox', 'Email')!;
  const password = refOf(o, 'textbox', 'Account password')!;
  const filled = await client.call('act', {
    session_id: sessionId,
    state_id: o.state_id,
    actions: [{ action: 'fill', ref: email, text: 'ana.lima@example.org' }, { action: 'fill', ref: password, text: 'Tr0ub4dor&3-horse' }],
  });
  assert.is(filled.status, 'completed', JSON.stringify(filled));
  const after = await observe();
  const md = after.markdown!;
  assert.ok(md.includes(`[textbox: Email (has value)](${email})`), md);
  assert.ok(md.includes(`[textbox: Account password (has value)](${password})`), md);
  const everything = JSON.stringify(after);
  for (const secret of ['ana.lima', 'Tr0ub', 'horse']) assert.ok(!everything.includes(secret), secret);
});

s('root_ref writes that element; python docs read as their article, the sidebars folded', async () => {
  await open('/release-notes.html');
  const o = await client.call('observe', { session_id: sessionId });
  const form = await observe({ root_ref: refOf(o, 'textbox', 'Email') });
  assert.is(form.markdown, `[textbox: Email](${refOf(o, 'textbox', 'Email')})`);
  await open('/python-docs/library/asyncio-task.html');
  const docs = await observe();
  const md = docs.markdown!;
  assert.ok(md.includes('\n# Coroutines and Tasks\n'), md.slice(0, 2000));
  assert.match(md, /```(python3?|pycon)?\n>>> import asyncio\n/);
  assert.match(md, /^\[navigation "Related"|^\[navigation/);
  assert.ok(!md.includes('¶'), 'no permalinks');
  // Every plain paragraph of the article is there, whole, with nothing past max_elements cut.
  const paragraphs = await evaluate<string[]>(
    server,
    docs.target_id,
    `[...document.querySelectorAll('[role=main] p')].filter((p) => p.checkVisibility() && !p.querySelector('*')).map((p) => p.textContent.replace(/\\s+/g, ' ').trim())`,
  );
  assert.ok(paragraphs.length > 20, String(paragraphs.length));
  for (const paragraph of paragraphs) assert.ok(md.includes(paragraph), paragraph);
  assert.ok(docs.truncated, 'more refs than max_elements on this page');
});

s('a long markdown cut at max_bytes reads back whole through its cursor, each element once', async () => {
  await open('/python-docs/library/asyncio-task.html');
  const whole = await observe();
  let part = await observe({ max_bytes: 8192 });
  const parts = [part];
  while (part.next_cursor) {
    parts.push(part = await client.call('observe', { session_id: sessionId, cursor: part.next_cursor, max_bytes: 8192 }));
  }
  assert.ok(parts.length > 3, String(parts.length));
  assert.is(parts.map((p) => p.markdown).join('\n'), whole.markdown);
  assert.equal(parts.flatMap((p) => p.elements.map((e) => e.ref)), whole.elements.map((e) => e.ref));
  assert.ok(parts.every((p) => p.tree === '' && p.state_id === parts[0]!.state_id));
});

s('browser_observe {format: "markdown"} shows the markdown in place of the tree; browser_act clicks its ref', async () => {
  const door = await v2Http(`${server.server.mcpUrl}?token=${encodeURIComponent(server.token)}`);
  onTeardown(() => door.close());
  const opened = await door.call('browser_tabs', { action: 'new', url: fixtures.url('/release-notes.html') });
  assert.is(opened.isError, false, textOf(opened));
  const observed = await door.call('browser_observe', { format: 'markdown' });
  const text = textOf(observed);
  assert.ok(text.includes('\n## Plans compared\n'), text);
  assert.ok(!text.includes('heading "Plans compared"'), 'no tree');
  const ref = /\[migration guide\]\((@\d+)\)/.exec(text)![1];
  const clicked = await door.call('browser_act', { state_id: observed.structuredContent!['state_id'], action: 'click', ref });
  assert.ok(['completed', 'verified'].includes(String(clicked.structuredContent!['status'])), textOf(clicked));
  assert.ok(textOf(clicked).includes('Child frame'), textOf(clicked));
});

s.run();
