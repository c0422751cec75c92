// The file side of downloads on real temp directories: safe names from page-chosen suggestions,
// free names without overwriting, cleanup of cancelled downloads, and the downloads root (a temp
// one created lazily and removed at dispose, a --downloads one never removed).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import type { DownloadFiles } from '../../src/browser/downloads.ts';
import { DownloadFolders, FALLBACK_NAME, NodeDownloadFiles, safeDownloadName } from '../../src/runtime/download-files.ts';

const GUID = '91a72141-d96f-4389-91b3-b36caad9b72e';

interface State {
  base: string;
}

const s = suite<State>('download-files', { base: '' });

s.before((ctx) => {
  ctx.base = realpathSync(mkdtempSync(join(tmpdir(), 'pagewire-download-files-test-')));
});

s.after((ctx) => {
  if (ctx.base) rmSync(ctx.base, { recursive: true, force: true });
});

let folderCount = 0;
/** A fresh session folder with Chromium's finished file `<guid>` in it. */
function folderWith(ctx: State, files: Record<string, string> = {}): string {
  const folder = join(ctx.base, `f${++folderCount}`);
  mkdirSync(folder);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(folder, name), content);
  return folder;
}

s('safeDownloadName keeps only a harmless last path component', () => {
  const cases: Array<[string, string]> = [
    ['report.txt', 'report.txt'],
    ['../../etc/passwd', 'passwd'],
    ['/etc/passwd', 'passwd'],
    ['..\\..\\Windows\\evil.exe', 'evil.exe'],
    ['C:\\Users\\me\\notes.md', 'notes.md'],
    ['dir/', 'dir'],
    ['.bashrc', 'bashrc'],
    ['...hidden.txt', 'hidden.txt'],
    ['.tar.gz', 'tar.gz'],
    ['', FALLBACK_NAME],
    ['.', FALLBACK_NAME],
    ['..', FALLBACK_NAME],
    ['/', FALLBACK_NAME],
    ['   ', FALLBACK_NAME],
    ['a/..', FALLBACK_NAME],
    ['rep\u0000ort\n\r\t.txt', 'report.txt'],
    ['\u0007bell\u007f.txt', 'bell.txt'],
    ['invoice\u202egpj.exe', 'invoicegpj.exe'],
    ['  spaced name.pdf  ', 'spaced name.pdf'],
    ['résumé 2024.pdf', 'résumé 2024.pdf'],
    ['no-extension', 'no-extension'],
  ];
  for (const [given, expected] of cases) assert.is(safeDownloadName(given), expected, JSON.stringify(given));
});

s('safeDownloadName shortens long names by bytes, keeping the extension and whole characters', () => {
  const long = safeDownloadName(`${'é'.repeat(300)}.pdf`);
  assert.ok(long.endsWith('.pdf'));
  assert.ok(new TextEncoder().encode(long).length <= 200, `${new TextEncoder().encode(long).length} bytes`);
  assert.not.ok(long.includes('\uFFFD'));
  assert.is(safeDownloadName(`${'a'.repeat(500)}`).length, 200);
  // An over-long "extension" is part of the name, not something to keep whole.
  const dotted = safeDownloadName(`x.${'b'.repeat(400)}`);
  assert.is(dotted.length, 200);
});

s('NodeDownloadFiles has the shape the browser layer asks for', () => {
  const files: DownloadFiles = new NodeDownloadFiles();
  assert.type(files.finish, 'function');
  assert.type(files.discard, 'function');
});

s('finish moves <guid> to the suggested name, then " (1)", " (2)"… without overwriting anything', async (ctx) => {
  const files = new NodeDownloadFiles();
  const folder = folderWith(ctx, { 'notes.txt': "the user's own file" });
  const paths: string[] = [];
  for (const content of ['one', 'two', 'three']) {
    writeFileSync(join(folder, GUID), content);
    paths.push(await files.finish(folder, GUID, 'report.txt'));
  }
  assert.equal(paths, [join(folder, 'report.txt'), join(folder, 'report (1).txt'), join(folder, 'report (2).txt')]);
  assert.equal(paths.map((p) => readFileSync(p, 'utf8')), ['one', 'two', 'three']);
  assert.not.ok(existsSync(join(folder, GUID)));
  writeFileSync(join(folder, GUID), 'four');
  assert.is(await files.finish(folder, GUID, 'notes.txt'), join(folder, 'notes (1).txt'));
  assert.is(readFileSync(join(folder, 'notes.txt'), 'utf8'), "the user's own file");
  writeFileSync(join(folder, GUID), 'five');
  writeFileSync(join(folder, 'README'), 'x');
  assert.is(await files.finish(folder, GUID, 'README'), join(folder, 'README (1)'));
});

s('finish never leaves the folder and never makes a hidden file', async (ctx) => {
  const files = new NodeDownloadFiles();
  const folder = folderWith(ctx);
  const cases: Array<[string, string]> = [
    ['../../etc/passwd', 'passwd'],
    ['.bashrc', 'bashrc'],
    ['', 'download'],
    ['../', 'download (1)'],
  ];
  for (const [suggested, expected] of cases) {
    writeFileSync(join(folder, GUID), suggested);
    const path = await files.finish(folder, GUID, suggested);
    assert.is(path, join(folder, expected), JSON.stringify(suggested));
    assert.is(dirname(path), folder);
  }
  assert.equal(readdirSync(folder).sort(), ['bashrc', 'download', 'download (1)', 'passwd']);
  assert.equal(readdirSync(ctx.base).filter((name) => !name.startsWith('f')), []);
});

s('finish refuses a guid that is not one, and a missing file', async (ctx) => {
  const files = new NodeDownloadFiles();
  const folder = folderWith(ctx);
  writeFileSync(join(ctx.base, 'outside'), 'x');
  for (const guid of ['../outside', '..', '', 'a/b']) {
    const error = await files.finish(folder, guid, 'x.txt').then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Error, JSON.stringify(guid));
  }
  assert.ok(existsSync(join(ctx.base, 'outside')));
  const missing = (await files.finish(folder, GUID, 'x.txt').catch((e: unknown) => e)) as { code?: string };
  assert.is(missing.code, 'ENOENT');
});

s('discard removes <guid> and <guid>.crdownload, nothing else; missing files are fine', async (ctx) => {
  const files = new NodeDownloadFiles();
  const folder = folderWith(ctx, { [GUID]: 'partial', [`${GUID}.crdownload`]: 'part', 'report.txt': 'keep', [`${GUID}x`]: 'keep' });
  await files.discard(folder, GUID);
  assert.equal(readdirSync(folder).sort(), [`${GUID}x`, 'report.txt']);
  await files.discard(folder, GUID);
  const bad = await files.discard(folder, '../f1').then(() => undefined, (e: unknown) => e);
  assert.ok(bad instanceof Error);
});

s('DownloadFolders without --downloads: a temp root made on first use (0700 folders), removed by dispose', async (ctx) => {
  const tmp = join(ctx.base, 'tmp');
  mkdirSync(tmp);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    const folders = new DownloadFolders();
    assert.ok(folders.temporary);
    assert.equal(readdirSync(tmp), [], 'nothing is created before it is needed');
    const a = await folders.folderFor('s_abc123');
    const b = await folders.folderFor('s_def456');
    const roots = readdirSync(tmp);
    assert.is(roots.length, 1);
    assert.match(roots[0]!, /^pagewire-downloads-/);
    const root = join(tmp, roots[0]!);
    assert.equal([a, b], [join(root, 's_abc123'), join(root, 's_def456')]);
    assert.is(statSync(a).mode & 0o777, 0o700);
    assert.is(statSync(root).mode & 0o777, 0o700);
    assert.is(await folders.folderFor('s_abc123'), a, 'asking again reuses the folder');
    writeFileSync(join(a, 'report.txt'), 'x');
    await folders.dispose();
    assert.equal(readdirSync(tmp), []);
    await folders.dispose();
    const late = await folders.folderFor('s_x').then(() => undefined, (e: unknown) => e);
    assert.ok(late instanceof Error);
    assert.equal(readdirSync(tmp), []);
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
});

s('DownloadFolders with --downloads: folders go inside it (created if missing), and dispose leaves it all', async (ctx) => {
  const given = join(ctx.base, 'my downloads', 'pagewire');
  const folders = new DownloadFolders(given);
  assert.not.ok(folders.temporary);
  const folder = await folders.folderFor('s_abc123');
  assert.is(folder, join(given, 's_abc123'));
  assert.is(statSync(folder).mode & 0o777, 0o700);
  writeFileSync(join(folder, 'report.txt'), 'the user keeps this');
  await folders.dispose();
  assert.is(readFileSync(join(folder, 'report.txt'), 'utf8'), 'the user keeps this');
});

s('DownloadFolders refuses session ids that are not one path component, and a root it cannot use', async (ctx) => {
  const folders = new DownloadFolders(join(ctx.base, 'root-ok'));
  for (const id of ['../x', '..', '', 'a/b']) {
    const error = await folders.folderFor(id).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof Error, JSON.stringify(id));
  }
  assert.not.ok(existsSync(join(ctx.base, 'x')));
  writeFileSync(join(ctx.base, 'a-file'), 'x');
  const blocked = new DownloadFolders(join(ctx.base, 'a-file', 'sub'));
  const error = (await blocked.folderFor('s_1').catch((e: unknown) => e)) as Error;
  assert.match(error.message, /--downloads directory .* cannot be used/);
  // A session folder name taken by a file is not silently shared.
  const root = join(ctx.base, 'root-taken');
  mkdirSync(root);
  writeFileSync(join(root, 's_taken'), 'x');
  const taken = (await new DownloadFolders(root).folderFor('s_taken').catch((e: unknown) => e)) as Error;
  assert.ok(taken instanceof Error);
});

s.run();
