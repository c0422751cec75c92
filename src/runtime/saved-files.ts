// Files the server itself writes for a session (page.pdf, PROTOCOL.md §10; trace files, §16): into the session's
// downloads folder (DownloadFolders), under a name the server makes, created exclusively so
// that nothing already there is overwritten. No part of the name comes from a caller or a page,
// so no name can climb out of the folder.
import { open, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { DownloadFolders } from './download-files.ts';

/** ` (1)` … ` (N)` after a taken name; past that the call fails (no folder holds that many in one second). */
const MAX_NUMBERED = 999;

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

/** `PREFIX-YYYYMMDD-HHMMSS` in UTC: sorts by time, and says nothing of the page. */
export function timeStem(prefix: string, now: Date): string {
  const iso = now.toISOString(); // 2026-12-06T17:43:35.123Z
  return `${prefix}-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 19).replaceAll(':', '')}`;
}

/** An open file handle, as `writeNewFile` hands it over. */
export type NewFile = Awaited<ReturnType<typeof open>>;

/**
 * Creates `<stem><ext>` in `folder`, or `<stem> (N)<ext>` when the name is taken (never
 * overwriting anything), has `write` fill it, and returns its absolute path. A file `write` fails
 * on is removed: a half-written file is no file to hand out.
 */
export async function writeNewFile(folder: string, stem: string, ext: string, write: (file: NewFile) => Promise<void>): Promise<string> {
  for (let n = 0; n <= MAX_NUMBERED; n++) {
    const path = resolve(join(folder, n === 0 ? `${stem}${ext}` : `${stem} (${n})${ext}`));
    if (dirname(path) !== resolve(folder)) throw new Error(`${path} is not in ${folder}`);
    let file;
    try {
      file = await open(path, 'wx', 0o600);
    } catch (error) {
      if (errorCode(error) === 'EEXIST') continue;
      throw error;
    }
    try {
      await write(file);
    } catch (error) {
      await file.close();
      await unlink(path).catch(() => {});
      throw error;
    }
    await file.close();
    return path;
  }
  throw new Error(`${MAX_NUMBERED} files named ${stem} already in ${folder}`);
}

/** PdfFiles (src/rpc/methods/pdf.ts) on node:fs. */
export class SessionFiles {
  readonly #folders: DownloadFolders;

  constructor(folders: DownloadFolders) {
    this.#folders = folders;
  }

  /** Writes `bytes` as a new `page-….pdf` in the session's folder; its absolute path. */
  async savePdf(sessionId: string, bytes: Uint8Array): Promise<string> {
    const folder = await this.#folders.folderFor(sessionId);
    return writeNewFile(folder, timeStem('page', new Date()), '.pdf', async (file) => {
      await file.writeFile(bytes);
    });
  }
}
