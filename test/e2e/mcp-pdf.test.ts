// browser_pdf over MCP (docs/mcp.md): a PDF up to the embedding limit comes as an embedded
// resource (its bytes those of the file the wire wrote), a larger one by its path only; the
// structuredContent is page.pdf's result naming the resource block.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PDF_EMBED_MAX_BYTES } from '../../src/mcp/tools.ts';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { type McpDoor, textOf, v2Http } from '../helpers/mcp.ts';
import { evaluate } from '../helpers/page.ts';
import { sharedServer, type TestServer } from '../helpers/pagewire.ts';

const s = suite('mcp browser_pdf');
let server: TestServer;
let door: McpDoor;

s.before(async () => {
  server = await sharedServer();
  door = await v2Http(`${server.server.mcpUrl}?token=${encodeURIComponent(server.token)}`);
});

s.after(() => door.close());

interface Resource {
  type: string;
  resource?: { uri: string; mimeType: string; blob: string };
}

s('an invoice: an embedded application/pdf resource holding the file, the text says pages, size and path', async () => {
  const fixtures = await fixtureServer();
  const opened = await door.call('browser_tabs', { action: 'new', url: fixtures.url('/invoice.html') });
  assert.is(opened.isError, false, textOf(opened));
  const printed = await door.call('browser_pdf', { paper: 'a4', ranges: '1-2' });
  assert.is(printed.isError, false, textOf(printed));
  const result = printed.structuredContent as { path: string; size: number; pages: number; resource_content?: number };
  assert.is(result.pages, 2);
  assert.is(result.resource_content, 1);
  const block = printed.content[1] as Resource;
  assert.is(block.type, 'resource');
  assert.is(block.resource?.mimeType, 'application/pdf');
  assert.is(decodeURIComponent(block.resource!.uri), `file://${result.path}`);
  const bytes = Buffer.from(block.resource!.blob, 'base64');
  assert.ok(bytes.equals(readFileSync(result.path)), 'the blob is the file');
  assert.is(bytes.length, result.size);
  assert.match(textOf(printed), new RegExp(`^PDF of 2 pages, \\d+ KB, saved at ${result.path.replace(/[()]/g, '\\$&')}; embedded`));
});

s('a PDF past the limit: named by its path only', async () => {
  // A photo-sized noise image per sheet: it compresses to nothing smaller than its pixels.
  const fixtures = await fixtureServer();
  const opened = await door.call('browser_tabs', { action: 'new', url: fixtures.url('/gallery.html') });
  assert.is(opened.isError, false, textOf(opened));
  const { tabs } = await door.call('browser_tabs', { action: 'list' }).then((r) =>
    r.structuredContent as { tabs: Array<{ target_id: string; selected: boolean }> }
  );
  await evaluate(
    server,
    tabs.find((t) => t.selected)!.target_id,
    `(() => { const c = document.createElement('canvas'); c.width = c.height = 900; const g = c.getContext('2d'); const d = g.createImageData(900, 900);
      for (let i = 0; i < d.data.length; i++) d.data[i] = (i % 4 === 3) ? 255 : Math.random() * 256; g.putImageData(d, 0, 0);
      const url = c.toDataURL(); for (let k = 0; k < 3; k++) { const img = new Image(); img.src = url; img.style.cssText = 'display:block;width:600px;height:600px'; document.body.append(img); }
      return Promise.all([...document.images].map((img) => img.decode().catch(() => {}))).then(() => true); })()`,
  );
  const printed = await door.call('browser_pdf');
  assert.is(printed.isError, false, textOf(printed));
  const result = printed.structuredContent as { path: string; size: number; resource_content?: number };
  assert.ok(result.size > PDF_EMBED_MAX_BYTES, `a large PDF: ${result.size}`);
  assert.is(result.resource_content, undefined);
  assert.is(printed.content.length, 1, 'the text block only');
  assert.match(textOf(printed), /larger than 1 MiB, so not embedded: open the file/);
  assert.ok(textOf(printed).includes(result.path));
});

s.run();
