// Which files a client may upload (PROTOCOL.md §8): only regular files under the --uploads root,
// none at all without one. Chromium's DOM.setFileInputFiles checks nothing (CDP-NOTES §8: a
// missing path became an empty file), so this is the only gate between a client and the disk.
//
// Paths are checked after realpath, so `..` and symlinks that lead out are caught, and what is
// returned is that real path: Chromium gets exactly the file that was checked, with no symlink in
// the way. (A process that can write inside the root can still swap a file afterwards; the root
// is trusted to be writable only by whoever may upload anyway.)
import { constants } from 'node:fs';
import { access, lstat, readlink, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, parse, relative, resolve, sep } from 'node:path';
import { ServerError } from '../errors.ts';
import type { PathPolicy } from '../actions/paths.ts';

/** `path` lies strictly inside `root` (both absolute, normalised); the root itself does not count. */
function isStrictlyInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

export class UploadPolicy implements PathPolicy {
  readonly #root: string | undefined;
  #realRoot: Promise<string> | undefined;

  /** `root`: the --uploads directory (relative to the cwd), or undefined when uploads are off. */
  constructor(root: string | undefined) {
    this.#root = root === undefined || root === '' ? undefined : resolve(root);
  }

  get enabled(): boolean {
    return this.#root !== undefined;
  }

  async resolve(paths: string[]): Promise<string[]> {
    if (this.#root === undefined) {
      throw new ServerError('forbidden', 'uploads are disabled: start the server with --uploads DIR');
    }
    if (paths.length === 0) return [];
    const root = await this.#resolveRoot(this.#root);
    // One at a time, all before returning: a later bad path rejects the whole list.
    const out: string[] = [];
    for (const given of paths) out.push(await this.#resolveOne(root, given));
    return out;
  }

  /** The root's real path, computed once; a failure is not kept, so creating the directory later works. */
  async #resolveRoot(root: string): Promise<string> {
    if (this.#realRoot === undefined) {
      const pending = (async () => {
        const real = await realpath(root);
        if (!(await stat(real)).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
        return real;
      })();
      this.#realRoot = pending;
      pending.catch(() => {
        if (this.#realRoot === pending) this.#realRoot = undefined;
      });
    }
    try {
      return await this.#realRoot;
    } catch (error) {
      const reason = errorCode(error);
      throw new ServerError('forbidden', `uploads are unavailable: the --uploads directory cannot be used (${reason})`, { cause: error });
    }
  }

  async #resolveOne(root: string, given: string): Promise<string> {
    // Messages name the path as the client gave it, never what it resolved to.
    const fail = (type: 'forbidden' | 'invalid_params', message: string, cause?: unknown) =>
      new ServerError(type, message.replace('%s', () => JSON.stringify(given)), { details: { path: given }, cause });
    if (typeof given !== 'string' || given === '' || given.includes('\0')) {
      throw fail('invalid_params', 'upload path %s is not a usable path');
    }
    const outside = () => fail('forbidden', 'upload path %s is not inside the uploads directory');
    // Relative paths are relative to the root, never to the server's cwd.
    const candidate = resolve(root, given);
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (error) {
      // Say "no such file" only about places inside the root; outside, every answer is the same,
      // so the error tells nothing about what exists there.
      const leadsTo = await resolvePartially(candidate);
      if (leadsTo === undefined || !isStrictlyInside(root, leadsTo)) throw outside();
      const code = errorCode(error);
      const what = code === 'ENOENT' || code === 'ENOTDIR' ? 'no such file' : `cannot be resolved (${code})`;
      throw fail('invalid_params', `${what}: upload path %s`, error);
    }
    if (!isStrictlyInside(root, real)) throw outside();
    const info = await stat(real).catch((error: unknown) => {
      throw fail('invalid_params', 'no such file: upload path %s', error);
    });
    if (!info.isFile()) throw fail('invalid_params', 'upload path %s is not a regular file');
    try {
      await access(real, constants.R_OK);
    } catch (error) {
      throw fail('invalid_params', 'upload path %s is not readable', error);
    }
    return real;
  }
}

/** The names in a path after its root (if any), without empty and "." parts; ".." kept. */
function components(path: string): string[] {
  return path.slice(parse(path).root.length).split(sep).filter((part) => part !== '' && part !== '.');
}

/**
 * Where a path that does not (fully) exist would lead: like realpath, following every symlink on
 * the way (dangling ones too), then the missing rest as written. Undefined when that cannot be
 * told (a link loop, a link that vanished meanwhile).
 */
async function resolvePartially(path: string): Promise<string | undefined> {
  let current = parse(path).root;
  const queue = components(path);
  let links = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part === '..') {
      // `current` has no symlinks left in it, so going up by name is what the OS would do.
      current = join(current, '..');
      continue;
    }
    const next = join(current, part);
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch {
      return join(next, ...queue);
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++links > 40) return undefined;
    let target: string;
    try {
      target = await readlink(next);
    } catch {
      return undefined;
    }
    if (isAbsolute(target)) current = parse(target).root;
    queue.unshift(...components(target));
  }
  return current;
}
