// page.pdf against real pages (PROTOCOL.md §10): a billing portal's invoice long enough for
// several pages, printed to the session's downloads folder; its sheet, orientation and ranges
// read back from the file; and password inputs and secrets kept out of the PDF (its text is
// extracted from the content streams: an unmasked print of the same page must show the value,
// so the check can fail), the masks gone from the page afterwards.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { mediaBoxes, pdfText } from '../helpers/pdf.ts';
import { type ActResult, type Observation, ref } from '../helpers/wire.ts';

const TOKEN = `acme_live_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
const PIN = `pin${crypto.randomUUID().slice(0, 8)}`;

const s = suite('page.pdf');
let server: TestServer;
let fixtures: FixtureServer;
let client: TestClient;
let sessionId: string;

s.before(async () => {
  server = await startTestServer(['--secret', 'ACME_TOKEN'], { PAGEWIRE_SECRET_ACME_TOKEN: TOKEN });
  fixtures = await fixtureServer();
  client = await server.connect();
  sessionId = (await client.call('session.create', { name: 'pdf' })).session_id;
});

s.after(() => client.close());

interface Printed {
  path: string;
  size: number;
  pages: number;
}

async function open(path: string): Promise<string> {
  return (await client.call('tabs.new', { session_id: sessionId, url: fixtures.url(path) })).target_id;
}

async function print(params: Record<string, unknown> = {}): Promise<{ result: Printed; bytes: Buffer }> {
  const result = await client.call<Printed>('page.pdf', { session_id: sessionId, ...params });
  return { result, bytes: readFileSync(result.path) };
}

/** The same page printed behind the server's back, nothing masked. */
async function unmaskedPrint(targetId: string): Promise<Buffer> {
  const { data } = await tabOf(server, targetId).session.send('Page.printToPDF', { printBackground: true });
  return Buffer.from(data, 'base64');
}

s('an invoice of several pages: a PDF file in the session folder, its size and pages told', async () => {
  await open('/invoice.html');
  const { result, bytes } = await print();
  assert.ok(bytes.subarray(0, 5).equals(Buffer.from('%PDF-')), 'starts with %PDF-');
  assert.is(result.size, bytes.length);
  assert.is(result.size, statSync(result.path).size);
  assert.ok(result.pages >= 3, `several pages: ${result.pages}`);
  assert.is(mediaBoxes(bytes).length, result.pages, 'one page box per page counted');
  assert.equal(mediaBoxes(bytes)[0], [0, 0, 612, 792], 'letter, portrait');
  assert.is(basename(dirname(result.path)), sessionId, "in the session's downloads folder");
  assert.match(basename(result.path), /^page-\d{8}-\d{6}( \(\d+\))?\.pdf$/);
  const text = pdfText(bytes);
  assert.ok(text.includes('Invoice INV-2026-0412') && text.includes('Total due'), text.slice(0, 200));
  // A second print in the same second gets a name of its own.
  const again = await print();
  assert.is.not(again.result.path, result.path);
  assert.ok(readdirSync(dirname(result.path)).includes(basename(result.path)), 'the first file is still there');
});

s('landscape turns the sheet, paper sets it, ranges keep those pages only', async () => {
  const landscape = await print({ landscape: true });
  assert.equal(mediaBoxes(landscape.bytes)[0], [0, 0, 792, 612]);
  const a4 = await print({ paper: 'a4' });
  const [x0, y0, width, height] = mediaBoxes(a4.bytes)[0]!;
  // 210 × 297 mm is 595.3 × 841.9 pt; Chromium rounds the sheet to whole points.
  assert.equal([x0, y0], [0, 0]);
  assert.ok(Math.abs(width! - 595.3) < 1 && Math.abs(height! - 841.9) < 1, `A4: ${width} × ${height}`);
  const all = await print();
  const two = await print({ ranges: '1-2' });
  assert.is(two.result.pages, 2);
  const some = await print({ ranges: '1, 3' });
  assert.is(some.result.pages, 2);
  assert.ok(all.result.pages > 2 && all.result.size > two.result.size, 'fewer pages, a smaller file');
});

s('bad paper, malformed ranges, a page past the end, a path: invalid_params; nothing written', async () => {
  const tab = await client.call('tabs.list', { session_id: sessionId }).then((r) => r.tabs.find((t) => t.selected)!);
  const folder = dirname((await print()).result.path);
  const before = readdirSync(folder).length;
  for (
    const [params, path] of [
      [{ paper: 'a0' }, 'paper'],
      [{ ranges: 'x' }, 'ranges'],
      [{ ranges: '3-1' }, 'ranges'],
      [{ ranges: '0' }, 'ranges'],
      [{ ranges: '999' }, 'ranges'],
      [{ landscape: 'yes' }, 'landscape'],
      [{ path: '../../outside.pdf' }, ''],
      [{ ranges: '1', file: '/tmp/x.pdf' }, ''],
    ] as const
  ) {
    const error = await client.callError('page.pdf', { session_id: sessionId, target_id: tab.target_id, ...params });
    assert.is(error.data?.error_type, 'invalid_params', JSON.stringify(params));
    assert.is((error.data?.issues as Array<{ path: string }>)[0]!.path, path, JSON.stringify(error.data));
  }
  assert.is(readdirSync(folder).length, before, 'no file for a refused call');
});

s(
  'a secret typed into a field and echoed by the page, and a typed password shown by the page: not in the PDF, masks gone after',
  async () => {
    const targetId = await open('/vault-signin.html');
    let o = await client.call<Observation>('observe', { session_id: sessionId });
    const typed = await client.call<ActResult>('act', {
      session_id: sessionId,
      state_id: o.state_id,
      action: 'type',
      ref: ref(o, 'API token'),
      secret: 'ACME_TOKEN',
    });
    assert.is(typed.status, 'completed', typed.error_text);
    // The page shows it in the field, echoes it in its text and copies it into its title.
    const plain = await unmaskedPrint(targetId);
    assert.ok(pdfText(plain).includes(TOKEN), 'an unmasked print shows the token');
    const { bytes } = await print({ target_id: targetId });
    assert.not.ok(pdfText(bytes).includes(TOKEN.slice(0, 8)), 'no part of the token in the text');
    assert.not.ok(bytes.includes(TOKEN.slice(0, 8)), 'nor in the file (the title in its metadata)');
    assert.ok(pdfText(bytes).includes('Sign in to your account'), 'the rest of the page is printed');
    assert.is(await evaluate(server, targetId, `document.getElementById('preview').getAttribute('style')`), null, 'inline masks undone');

    const invoice = await open('/invoice.html');
    o = await client.call<Observation>('observe', { session_id: sessionId });
    const filled = await client.call<ActResult>('act', {
      session_id: sessionId,
      state_id: o.state_id,
      actions: [{ action: 'fill', ref: ref(o, 'Account PIN'), text: PIN }, { action: 'check', ref: ref(o, 'Show PIN'), checked: true }],
    });
    assert.is(filled.status, 'completed', filled.error_text);
    assert.ok(pdfText(await unmaskedPrint(invoice)).includes(PIN), 'an unmasked print shows the PIN (field and echo)');
    const masked = await print({ target_id: invoice });
    assert.not.ok(pdfText(masked.bytes).includes(PIN.slice(0, 5)), 'the PIN is in no text of the PDF');
    assert.not.ok(masked.bytes.includes(PIN.slice(0, 5)));
    // The field (a text field now, holding a typed password) was masked inline: undone.
    assert.is(await evaluate(server, invoice, `document.getElementById('pin').getAttribute('style')`), null);
    assert.is(await evaluate(server, invoice, `document.getElementById('pin').value`), PIN);
  },
);

s('a pending dialog: modal_blocked at once; printing works again once it is handled', async () => {
  const targetId = await open('/invoice.html');
  const tab = tabOf(server, targetId);
  const opened = new Promise((resolve) => tab.dialogs.events.on('opened', resolve));
  await tab.session.send('Runtime.evaluate', { expression: `setTimeout(() => alert('Session expires soon'))` });
  await opened;
  const error = await client.callError('page.pdf', { session_id: sessionId, target_id: targetId });
  assert.is(error.data?.error_type, 'modal_blocked');
  assert.equal(error.data?.modal, { type: 'alert', message: 'Session expires soon' });
  await tab.dialogs.pending!.session.send('Page.handleJavaScriptDialog', { accept: true });
  const { result } = await print({ target_id: targetId });
  assert.ok(result.pages >= 3);
});

s.run();
