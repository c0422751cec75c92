import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { type ErrorType, isServerError } from '../../src/errors.ts';
import type { PathPolicy } from '../../src/actions/paths.ts';
import { UploadPolicy } from '../../src/runtime/upload-paths.ts';

// <base>/
//   uploads/                       the --uploads root
//     a.txt, b.txt, sub/c.txt, sub/deeper/
//     link-in.txt -> sub/c.txt     symlink that stays inside
//     sub/abs-link.txt -> <root>/a.txt  (absolute target, inside)
//     link-out.txt -> ../secret.txt, link-out-dir -> .., dangling-out.txt -> ../nowhere.txt
//                                  symlinks that lead out
//     dangling-in.txt -> <root>/sub/missing.txt, loop.txt -> loop.txt
//     dir.txt/                     a directory with a file-like name
//   uploads-link -> uploads        the root given through a symlink
//   secret.txt                     outside the root
//   uploads-sibling/x.txt          a sibling whose name starts like the root's
interface State {
  base: string;
  root: string;
}

const s = suite<State>('upload-paths', { base: '', root: '' });

s.before((ctx) => {
  ctx.base = realpathSync(mkdtempSync(join(tmpdir(), 'pagewire-uploads-')));
  ctx.root = join(ctx.base, 'uploads');
  mkdirSync(join(ctx.root, 'sub', 'deeper'), { recursive: true });
  mkdirSync(join(ctx.root, 'dir.txt'));
  mkdirSync(join(ctx.base, 'uploads-sibling'));
  writeFileSync(join(ctx.root, 'a.txt'), 'a');
  writeFileSync(join(ctx.root, 'b.txt'), 'b');
  writeFileSync(join(ctx.root, 'sub', 'c.txt'), 'c');
  writeFileSync(join(ctx.base, 'secret.txt'), 'secret');
  writeFileSync(join(ctx.base, 'uploads-sibling', 'x.txt'), 'x');
  symlinkSync(join('sub', 'c.txt'), join(ctx.root, 'link-in.txt'));
  symlinkSync(join('..', 'secret.txt'), join(ctx.root, 'link-out.txt'));
  symlinkSync('..', join(ctx.root, 'link-out-dir'));
  symlinkSync(join('..', 'nowhere.txt'), join(ctx.root, 'dangling-out.txt'));
  symlinkSync('loop.txt', join(ctx.root, 'loop.txt'));
  symlinkSync(join(ctx.root, 'sub', 'missing.txt'), join(ctx.root, 'dangling-in.txt'));
  symlinkSync(join(ctx.root, 'a.txt'), join(ctx.root, 'sub', 'abs-link.txt'));
  symlinkSync(ctx.root, join(ctx.base, 'uploads-link'));
});

s.after((ctx) => {
  if (ctx.base) rmSync(ctx.base, { recursive: true, force: true });
});

/** Runs `fn`, expecting a ServerError of `type` whose message names `given` and nothing resolved outside. */
async function rejects(fn: () => Promise<unknown>, type: ErrorType, includes: string, ctx?: State): Promise<void> {
  try {
    await fn();
  } catch (error) {
    assert.ok(isServerError(error), String(error));
    assert.is(error.type, type, error.message);
    assert.ok(error.message.includes(includes), `"${error.message}" should include "${includes}"`);
    if (ctx) assert.not.ok(error.message.includes(join(ctx.base, 'secret.txt')), error.message);
    return;
  }
  assert.unreachable(`expected ${type}`);
}

s('no root: every upload is forbidden, with the flag to use', async () => {
  for (const root of [undefined, '']) {
    const policy = new UploadPolicy(root);
    assert.not.ok(policy.enabled);
    await rejects(() => policy.resolve(['/etc/hostname']), 'forbidden', 'start the server with --uploads DIR');
    await rejects(() => policy.resolve([]), 'forbidden', 'uploads are disabled');
  }
});

s('relative paths resolve against the root, not the cwd; results are absolute real paths', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  assert.ok(policy.enabled);
  assert.not.equal(process.cwd(), ctx.root);
  assert.equal(await policy.resolve(['a.txt', 'sub/c.txt', './b.txt', 'sub/deeper/../c.txt']), [
    join(ctx.root, 'a.txt'),
    join(ctx.root, 'sub', 'c.txt'),
    join(ctx.root, 'b.txt'),
    join(ctx.root, 'sub', 'c.txt'),
  ]);
  assert.equal(await policy.resolve([]), []);
});

s('absolute paths inside the root are accepted', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  assert.equal(await policy.resolve([join(ctx.root, 'a.txt')]), [join(ctx.root, 'a.txt')]);
  // `..` that comes back into the root is still inside.
  assert.equal(await policy.resolve(['../uploads/b.txt']), [join(ctx.root, 'b.txt')]);
});

s('a symlink inside that points inside resolves to its target', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  assert.equal(await policy.resolve(['link-in.txt', 'sub/abs-link.txt']), [join(ctx.root, 'sub', 'c.txt'), join(ctx.root, 'a.txt')]);
});

s('a root given through a symlink works, with paths through either name', async (ctx) => {
  const policy = new UploadPolicy(join(ctx.base, 'uploads-link'));
  assert.equal(await policy.resolve(['a.txt', join(ctx.base, 'uploads-link', 'b.txt'), join(ctx.root, 'sub', 'c.txt')]), [
    join(ctx.root, 'a.txt'),
    join(ctx.root, 'b.txt'),
    join(ctx.root, 'sub', 'c.txt'),
  ]);
});

s('escapes are forbidden: .., absolute paths elsewhere, a sibling with a similar name', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['../secret.txt']), 'forbidden', '"../secret.txt"', ctx);
  await rejects(() => policy.resolve(['sub/../../secret.txt']), 'forbidden', 'sub/../../secret.txt', ctx);
  await rejects(() => policy.resolve([join(ctx.base, 'secret.txt')]), 'forbidden', 'not inside the uploads directory');
  await rejects(() => policy.resolve(['/etc/hostname']), 'forbidden', '/etc/hostname');
  await rejects(() => policy.resolve(['../uploads-sibling/x.txt']), 'forbidden', 'uploads-sibling');
});

s('symlinks inside the root that lead out are forbidden, and the message names the path as given', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['link-out.txt']), 'forbidden', '"link-out.txt"', ctx);
  await rejects(() => policy.resolve(['link-out-dir/secret.txt']), 'forbidden', '"link-out-dir/secret.txt"', ctx);
  await rejects(() => policy.resolve([join(ctx.root, 'link-out-dir', 'uploads-sibling', 'x.txt')]), 'forbidden', 'link-out-dir', ctx);
});

s('the root itself is not a file to upload', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['.']), 'forbidden', '"."');
  await rejects(() => policy.resolve([ctx.root]), 'forbidden', 'not inside');
  await rejects(() => policy.resolve(['sub/..']), 'forbidden', 'sub/..');
});

s('missing files inside the root are invalid_params "no such file"', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['nope.txt']), 'invalid_params', 'no such file: upload path "nope.txt"');
  await rejects(() => policy.resolve(['sub/missing/deeper.txt']), 'invalid_params', 'no such file');
  await rejects(() => policy.resolve(['a.txt/x']), 'invalid_params', 'no such file');
  await rejects(() => policy.resolve(['dangling-in.txt']), 'invalid_params', 'no such file: upload path "dangling-in.txt"');
});

s('missing files outside the root are forbidden, so nothing is learnt about what exists there', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['../nowhere.txt']), 'forbidden', 'not inside');
  await rejects(() => policy.resolve(['/no/such/dir/file.txt']), 'forbidden', 'not inside');
  await rejects(() => policy.resolve(['dangling-out.txt']), 'forbidden', 'not inside');
  await rejects(() => policy.resolve(['link-out-dir/nowhere.txt']), 'forbidden', 'not inside');
  // A link loop cannot be shown to stay inside.
  await rejects(() => policy.resolve(['loop.txt']), 'forbidden', '"loop.txt"');
});

s('directories and unusable strings are invalid_params', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['sub']), 'invalid_params', 'not a regular file');
  await rejects(() => policy.resolve(['dir.txt']), 'invalid_params', '"dir.txt" is not a regular file');
  await rejects(() => policy.resolve(['']), 'invalid_params', 'not a usable path');
  await rejects(() => policy.resolve(['a\0.txt']), 'invalid_params', 'not a usable path');
});

s('unreadable files are invalid_params', async (ctx) => {
  // root ignores file modes; nothing to check there.
  if (typeof process.getuid === 'function' && process.getuid() === 0) return;
  const path = join(ctx.root, 'locked.txt');
  writeFileSync(path, 'x');
  chmodSync(path, 0o000);
  try {
    await rejects(() => new UploadPolicy(ctx.root).resolve(['locked.txt']), 'invalid_params', 'not readable');
  } finally {
    rmSync(path, { force: true });
  }
});

s('nothing is partially accepted: one bad path rejects the list', async (ctx) => {
  const policy = new UploadPolicy(ctx.root);
  await rejects(() => policy.resolve(['a.txt', 'b.txt', '../secret.txt']), 'forbidden', '../secret.txt');
  await rejects(() => policy.resolve(['a.txt', 'nope.txt', 'b.txt']), 'invalid_params', 'nope.txt');
});

s('a path with $ patterns is quoted verbatim in the message', async (ctx) => {
  await rejects(() => new UploadPolicy(ctx.root).resolve(["$&$'x.txt"]), 'invalid_params', '"$&$\'x.txt"');
});

s('errors carry the path as given in details', async (ctx) => {
  try {
    await new UploadPolicy(ctx.root).resolve(['link-out.txt']);
    assert.unreachable('expected forbidden');
  } catch (error) {
    assert.ok(isServerError(error, 'forbidden'));
    assert.equal(error.details, { path: 'link-out.txt' });
  }
});

s('a root that does not exist yet is forbidden until it is created', async (ctx) => {
  const later = join(ctx.base, 'later');
  const policy = new UploadPolicy(later);
  await rejects(() => policy.resolve(['a.txt']), 'forbidden', 'uploads are unavailable');
  mkdirSync(later);
  writeFileSync(join(later, 'a.txt'), 'a');
  assert.equal(await policy.resolve(['a.txt']), [join(later, 'a.txt')]);
  // A file as the root is not a directory.
  await rejects(() => new UploadPolicy(join(ctx.root, 'a.txt')).resolve(['a.txt']), 'forbidden', 'uploads are unavailable');
});

s('UploadPolicy is the PathPolicy the actions layer asks for', async (ctx) => {
  const policy: PathPolicy = new UploadPolicy(ctx.root);
  assert.equal(await policy.resolve(['a.txt']), [join(ctx.root, 'a.txt')]);
});

s.run();
