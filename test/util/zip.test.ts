// The ZIP writer (src/util/zip.ts) read back by other readers: Python's zipfile (which checks
// every CRC with `-t`) and Info-ZIP's `unzip` where installed, and our own test reader.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { crc32, ZipWriter } from '../../src/util/zip.ts';
import { readZip } from '../helpers/zip.ts';

const s = suite('zip');

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A zip of a JSON entry (deflated), a binary one (stored: deflate would not shrink it) and a UTF-8 name. */
function sample(): { bytes: Uint8Array; json: Uint8Array; binary: Uint8Array } {
  const json = new TextEncoder().encode(
    JSON.stringify({ steps: Array.from({ length: 200 }, (_, i) => ({ seq: i + 1, method: 'observe' })) }),
  );
  // Random bytes, as a JPEG's are near enough: deflate does not shrink them.
  const binary = crypto.getRandomValues(new Uint8Array(4096));
  const zip = new ZipWriter(new Date(Date.UTC(2026, 11, 6, 21, 30, 14)));
  const parts = [
    ...zip.entry('trace.json', { data: json, deflated: new Uint8Array(deflateRawSync(json)) }),
    ...zip.entry('frames/1.jpg', { data: binary, deflated: new Uint8Array(deflateRawSync(binary)) }),
    ...zip.entry('notes/résumé.txt', { data: new TextEncoder().encode('ok\n') }),
    ...zip.finish(),
  ];
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { bytes, json, binary };
}

s('crc32 is the IEEE CRC-32 (the check value of "123456789")', () => {
  assert.is(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  assert.is(crc32(new Uint8Array()), 0);
});

s('our reader reads every entry back: deflated where it shrinks, stored where it does not', () => {
  const { bytes, json, binary } = sample();
  const entries = readZip(bytes);
  assert.equal(entries.map((e) => [e.name, e.method]), [['trace.json', 8], ['frames/1.jpg', 0], ['notes/résumé.txt', 0]]);
  assert.equal(entries[0]!.data, json);
  assert.equal(entries[1]!.data, binary);
});

s("python3's zipfile lists and tests it (every CRC checked), and unzip -l lists it", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagewire-zip-'));
  try {
    const file = join(dir, 'sample.zip');
    writeFileSync(file, sample().bytes);
    const listed = execFileSync('python3', ['-m', 'zipfile', '-l', file], { encoding: 'utf8' });
    for (const name of ['trace.json', 'frames/1.jpg', 'notes/résumé.txt']) assert.ok(listed.includes(name), listed);
    assert.ok(listed.includes('2026-12-06 21:30:14'), `the time stamp: ${listed}`);
    const tested = execFileSync('python3', ['-c', 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).testzip())', file], {
      encoding: 'utf8',
    });
    assert.is(tested.trim(), 'None', 'no bad entry');
    if (hasCommand('unzip')) {
      const unzipped = execFileSync('unzip', ['-l', file], { encoding: 'utf8' });
      assert.ok(unzipped.includes('frames/1.jpg') && unzipped.includes('3 files'), unzipped);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

s('a finished zip takes no more entries', () => {
  const zip = new ZipWriter(new Date());
  zip.finish();
  assert.throws(() => zip.entry('late', { data: new Uint8Array(1) }), /finished/);
});

s.run();
