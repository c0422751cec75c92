// The file side of downloads (PROTOCOL.md §9): where each session's downloads land, and the
// renaming and cleanup that DownloadTracker (src/browser/downloads.ts) asks for. Chromium names
// every file by its guid (CDP-NOTES §8); a client wants `report.txt`, and never a name that a
// page chose to climb out of the folder or to overwrite another file.
//
// NodeDownloadFiles and DownloadFolders match the browser layer's DownloadFiles by shape: this
// layer may not import src/browser/, and server.ts (which may) hands one to the other.
import { link, lstat, mkdir, mkdtemp, open, realpath, rename, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ServerError } from '../errors.ts';

/** The name a download gets when nothing usable is left of its suggested one. */
export const FALLBACK_NAME = 'download';

/** Common file systems allow 255 bytes per name; this leaves room for a ` (1234)` suffix. */
const MAX_NAME_BYTES = 200;
/** Past this, a "suffix" after the last dot is part of the name, not an extension to keep. */
const MAX_EXTENSION_CHARS = 16;
/** ` (1)` … ` (N)` before giving up on readable names and falling back to the guid. */
const MAX_NUMBERED = 9_999;

// C0 and C1 controls and DEL (newlines in a name break logs and shells), and the bidi
// marks, embeddings, overrides and isolates that make `gpj.exe` display as `exe.jpg`.
// deno-lint-ignore no-control-regex -- control characters are exactly what a file name must not hold
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// Chromium's guids are UUIDs; anything else must not become part of a path.
const SAFE_GUID = /^[A-Za-z0-9-]{1,128}$/;
// Session ids are `s_` + hex; one path component, never `..`.
const SAFE_FOLDER_NAME = /^[A-Za-z0-9_-]{1,128}$/;

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
function truncateBytes(text: string, max: number): string {
  if (utf8Bytes(text) <= max) return text;
  let out = '';
  let bytes = 0;
  for (const char of text) {
    const size = utf8Bytes(char);
    if (bytes + size > max) break;
    out += char;
    bytes += size;
  }
  return out;
}

/** A name and its extension (with the dot); dotfiles and over-long "extensions" have none. */
function splitExtension(name: string): { stem: string; ext: string } {
  const dot = name.lastIndexOf('.');
  if (dot <= 0 || name.length - dot > MAX_EXTENSION_CHARS) return { stem: name, ext: '' };
  return { stem: name.slice(0, dot), ext: name.slice(dot) };
}

/**
 * A file name safe to create in the downloads folder, from a page-chosen suggestion: only its
 * last path component, without control or bidi characters, without leading dots (no hidden
 * files, no `..`), trimmed, at most MAX_NAME_BYTES with the extension kept; `download` when
 * nothing is left.
 */
export function safeDownloadName(suggested: string): string {
  const parts = suggested.replace(UNSAFE_CHARS, '').split(/[/\\]/).filter((part) => part.trim() !== '');
  const name = (parts.at(-1) ?? '').trim().replace(/^[.\s]+/, '').trimEnd();
  if (name === '') return FALLBACK_NAME;
  const { stem, ext } = splitExtension(name);
  const keptStem = truncateBytes(stem, Math.max(1, MAX_NAME_BYTES - utf8Bytes(ext))).trimEnd();
  return keptStem === '' ? FALLBACK_NAME + ext : keptStem + ext;
}

function checkGuid(guid: string): void {
  if (!SAFE_GUID.test(guid)) throw new Error(`not a download guid: ${JSON.stringify(guid)}`);
}

/**
 * Makes `source` appear as `target` only if `target` does not exist yet (false when it does).
 * A hard link claims the name atomically and the file appears complete; where links are not
 * supported, an exclusively created placeholder claims it and a rename replaces it.
 */
async function claim(source: string, target: string): Promise<boolean> {
  try {
    await link(source, target);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EEXIST') return false;
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV'].includes(code)) throw error;
    let placeholder;
    try {
      placeholder = await open(target, 'wx', 0o600);
    } catch (openError) {
      if (errorCode(openError) === 'EEXIST') return false;
      throw openError;
    }
    await placeholder.close();
    await rename(source, target);
    return true;
  }
  await unlink(source);
  return true;
}

/** DownloadFiles (src/browser/downloads.ts) on node:fs. */
export class NodeDownloadFiles {
  async finish(folder: string, guid: string, suggestedFilename: string): Promise<string> {
    checkGuid(guid);
    const source = join(folder, guid);
    const info = await lstat(source);
    if (!info.isFile()) throw new Error(`${source} is not a regular file`);
    const { stem, ext } = splitExtension(safeDownloadName(suggestedFilename));
    for (let n = 0; n <= MAX_NUMBERED; n++) {
      const target = join(folder, n === 0 ? `${stem}${ext}` : `${stem} (${n})${ext}`);
      if (await claim(source, target)) return resolve(target);
    }
    // Ten thousand namesakes: the guid is unique and still says which download it was.
    const target = join(folder, `${stem} (${guid})${ext}`);
    if (await claim(source, target)) return resolve(target);
    return resolve(source);
  }

  async discard(folder: string, guid: string): Promise<void> {
    checkGuid(guid);
    // force: the part file may be gone already (Chromium removed it, or it never started).
    await rm(join(folder, guid), { force: true });
    await rm(join(folder, `${guid}.crdownload`), { force: true });
  }
}

/**
 * The downloads root and one folder per session in it. The root is the --downloads directory when
 * given (kept at shutdown: the files are the user's), else a private temp directory created on
 * first use and removed by dispose(). Nothing goes under the user's home unless --downloads says
 * so: Chromium's own default would be ~/Downloads (CDP-NOTES §6).
 */
export class DownloadFolders {
  readonly #given: string | undefined;
  #root: Promise<string> | undefined;
  #disposed = false;

  /** `root`: the --downloads directory (relative to the cwd), or undefined for a temp root. */
  constructor(root?: string) {
    this.#given = root === undefined || root === '' ? undefined : resolve(root);
  }

  /** Whether the root is ours to remove (no --downloads given). */
  get temporary(): boolean {
    return this.#given === undefined;
  }

  /** Creates (0700) and returns the absolute path of `<root>/<sessionId>`. */
  async folderFor(sessionId: string): Promise<string> {
    if (this.#disposed) throw new ServerError('internal_error', 'the downloads folders are already disposed');
    if (!SAFE_FOLDER_NAME.test(sessionId)) throw new Error(`not a usable session folder name: ${JSON.stringify(sessionId)}`);
    const root = await this.#resolveRoot();
    const folder = join(root, sessionId);
    try {
      await mkdir(folder, { mode: 0o700 });
    } catch (error) {
      // A folder left by an earlier run under the same id is reused; anything else there is not.
      const existing = errorCode(error) === 'EEXIST' ? await lstat(folder).catch(() => undefined) : undefined;
      if (!existing?.isDirectory()) throw this.#unusable(error);
    }
    return folder;
  }

  /** Removes the temp root and everything in it; a --downloads root is never touched. Idempotent. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    if (this.#given !== undefined || this.#root === undefined) return;
    const root = await this.#root.catch(() => undefined);
    this.#root = undefined;
    if (root !== undefined) await rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }

  /** The root's real path, made once; a failure is not kept, so fixing the directory helps at once. */
  #resolveRoot(): Promise<string> {
    if (this.#root === undefined) {
      const given = this.#given;
      const pending = (async () => {
        if (given === undefined) return realpath(await mkdtemp(join(tmpdir(), 'pagewire-downloads-')));
        await mkdir(given, { recursive: true, mode: 0o700 });
        return realpath(given);
      })();
      this.#root = pending;
      pending.catch(() => {
        if (this.#root === pending) this.#root = undefined;
      });
    }
    return this.#root.catch((error: unknown) => {
      throw this.#unusable(error);
    });
  }

  #unusable(error: unknown): ServerError {
    const where = this.#given === undefined ? 'a temporary downloads folder' : `the --downloads directory ${this.#given}`;
    return new ServerError('internal_error', `${where} cannot be used (${errorCode(error)})`, {
      details: { reason: 'downloads_folder', fix: 'start the server with --downloads pointing at a writable directory' },
      cause: error,
    });
  }
}
