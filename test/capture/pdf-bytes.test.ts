// The pure parts of page.pdf: a printed file's pages counted, and secrets blanked from the
// strings outside its streams at the same length (the cross-reference offsets stay right), the
// compressed page content left as it is.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hidePdfSecrets, pdfPageCount } from '../../src/capture/pdf-bytes.ts';

const s = suite('pdf bytes');
const SECRET = 'acme_live_7Kq9';

function utf16Hex(text: string): string {
  return 'FEFF' + [...text].map((c) => c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')).join('');
}

/** A file shaped as Skia writes one: an Info dictionary, pages, a link, and a stream that happens to hold the secret. */
function pdf(title: string): Uint8Array {
  return new TextEncoder().encode([
    '%PDF-1.4',
    `1 0 obj\n<</Creator (Chromium)\n/Title <${utf16Hex(title)}>>>\nendobj`,
    '2 0 obj\n<</Type /Page\n/Annots [5 0 R]>>\nendobj',
    '3 0 obj\n<</Type /Page>>\nendobj',
    '4 0 obj\n<</Type /Pages\n/Count 2\n/Kids [2 0 R 3 0 R]>>\nendobj',
    `5 0 obj\n<</Type /Annot\n/A <</S /URI\n/URI (https://acme.example/keys?k=${SECRET}\\(x\\))>>>>\nendobj`,
    `6 0 obj\n<</Length 40>> stream\n/Type /Page (${SECRET}) <41424344>\nendstream\nendobj`,
    'trailer\n<</Root 4 0 R\n/Info 1 0 R>>\n%%EOF\n',
  ].join('\n'));
}

const text = (bytes: Uint8Array) => new TextDecoder('latin1').decode(bytes);

s('pages are the page objects, not the page tree, and not words inside a stream', () => {
  assert.is(pdfPageCount(pdf('Invoice')), 2);
});

s('a secret in the title (UTF-16 hex) and in a link (a literal with escapes) becomes asterisks, at the same length', () => {
  const before = pdf(`Acme Cloud · ${SECRET}`);
  const after = hidePdfSecrets(before, [{ exact: SECRET }]);
  assert.is(after.length, before.length);
  const out = text(after);
  assert.not.ok(out.slice(0, out.indexOf('stream')).includes(SECRET), 'no secret outside the stream');
  assert.ok(out.includes(`/Title <FEFF${'002A'.repeat(`Acme Cloud · ${SECRET}`.length)}>`), out.slice(0, 200));
  assert.match(out, /\/URI \(\*+\)>>/);
  assert.ok(out.includes(`(${SECRET}) <41424344>`), 'the stream is left alone');
  assert.ok(out.includes('/Creator (Chromium)'), 'other strings stay');
  // Every byte outside the changed strings is the same.
  let changed = 0;
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) changed++;
  assert.ok(changed > 0 && changed < 200, `${changed} bytes changed`);
});

s('a typed value is found by its beginning too; nothing to hide gives back the same bytes', () => {
  const typed = hidePdfSecrets(pdf(`Draft ${SECRET.slice(0, 6)}`), [SECRET]);
  assert.ok(text(typed).includes(`/Title <FEFF${'002A'.repeat(`Draft ${SECRET.slice(0, 6)}`.length)}>`));
  const clean = new TextEncoder().encode('%PDF-1.4\n1 0 obj\n<</Title (Invoice INV-1)>>\nendobj\n');
  assert.is(hidePdfSecrets(clean, [{ exact: SECRET }]), clean);
  assert.is(hidePdfSecrets(clean, []), clean);
});

s.run();
