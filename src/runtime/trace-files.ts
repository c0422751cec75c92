// The file side of traces (PROTOCOL.md §16): where a session's trace spills its screenshots while
// recording (a folder of its own inside the session's downloads folder, removed with the session),
// the trace file trace.export writes there (a zip, its JSON deflated, its JPEGs stored), and the
// names of the files written, so that GET /traces/<name> serves those and nothing else.
//
// TraceSpillFolder matches the sessions layer's TraceSpill by shape, and saveTrace's entries the
// recorder's: this layer may not import src/sessions/, and server.ts hands one to the other.
import { deflateRawSync } from 'node:zlib';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { BoundedMap } from '../util/bounded-map.ts';
import { ZipWriter } from '../util/zip.ts';
import type { DownloadFolders } from './download-files.ts';
import { timeStem, writeNewFile } from './saved-files.ts';

/** Trace files GET /traces serves, the newest: an older one stays on disk, no longer served. */
const TRACES_SERVED = 1_000;
/** A spilled entry's name: `frames/<n>.jpg`, nothing that could climb out of the folder. */
const SPILL_NAME = /^frames\/[1-9]\d{0,9}\.jpg$/;
/** The folder a session's spilled screenshots wait in, inside its downloads folder. */
const SPILL_FOLDER = '.pagewire-trace-spill';
/** A trace file's name as trace.export makes it; GET /traces serves no other. */
export const TRACE_NAME = /^pagewire-trace-(s_[A-Za-z0-9_-]{1,120})-\d{8}-\d{6}(?: \(\d{1,3}\))?\.zip$/;

/** One session's spilled screenshots: created on the first, removed by dispose. */
export class TraceSpillFolder {
  readonly #folder: Promise<string>;
  #made: Promise<string> | undefined;

  constructor(sessionFolder: Promise<string>) {
    this.#folder = sessionFolder.then((folder) => join(folder, SPILL_FOLDER));
    // Nothing is asked of the folder before the first write; a failure surfaces there.
    this.#folder.catch(() => {});
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    await writeFile(await this.#pathOf(name, true), bytes, { mode: 0o600 });
  }

  async read(name: string): Promise<Uint8Array> {
    return new Uint8Array(await readFile(await this.#pathOf(name, false)));
  }

  async remove(name: string): Promise<void> {
    await rm(await this.#pathOf(name, false), { force: true });
  }

  async dispose(): Promise<void> {
    if (this.#made === undefined) return;
    const folder = await this.#made.catch(() => undefined);
    if (folder !== undefined) await rm(folder, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
  }

  async #pathOf(name: string, create: boolean): Promise<string> {
    if (!SPILL_NAME.test(name)) throw new Error(`not a spilled frame: ${JSON.stringify(name)}`);
    if (create) {
      this.#made ??= this.#folder.then(async (folder) => {
        await mkdir(join(folder, 'frames'), { recursive: true, mode: 0o700 });
        return folder;
      });
    }
    const folder = this.#made ? await this.#made : await this.#folder;
    return join(folder, name);
  }
}

/** An entry of the trace file (the recorder's TraceEntry). */
export interface TraceFileEntry {
  name: string;
  data: Uint8Array;
}

/** Trace files: the spills of sessions, the files trace.export writes, and which principal may read each. */
export class TraceFiles {
  readonly #folders: DownloadFolders;
  /** File name → its absolute path and the principal whose session wrote it (the newest, so that memory stays bounded). */
  readonly #written = new BoundedMap<string, { path: string; principalId: string }>(TRACES_SERVED);

  constructor(folders: DownloadFolders) {
    this.#folders = folders;
  }

  spillFor(sessionId: string): TraceSpillFolder {
    return new TraceSpillFolder(this.#folders.folderFor(sessionId));
  }

  /**
   * Writes `entries` as a new `pagewire-trace-<session>-<stamp>.zip` in the session's downloads
   * folder, part by part (nothing holds the whole file); its absolute path and size.
   */
  async saveTrace(
    sessionId: string,
    principalId: string,
    entries: AsyncIterable<TraceFileEntry>,
  ): Promise<{ path: string; size: number }> {
    const folder = await this.#folders.folderFor(sessionId);
    const now = new Date();
    const path = await writeNewFile(folder, timeStem(`pagewire-trace-${sessionId}`, now), '.zip', async (file) => {
      const zip = new ZipWriter(now);
      for await (const entry of entries) {
        // JSON shrinks several times over; a JPEG does not, and is stored.
        const deflated = entry.name.endsWith('.jpg') ? undefined : new Uint8Array(deflateRawSync(entry.data));
        for (const part of zip.entry(entry.name, { data: entry.data, ...(deflated ? { deflated } : {}) })) await file.write(part);
      }
      for (const part of zip.finish()) await file.write(part);
    });
    const { size } = await stat(path);
    this.#written.set(basename(path), { path, principalId });
    return { path, size };
  }

  /** The path of a trace this server wrote for `principalId`, by its file name only; undefined for any other name. */
  pathOf(name: string, principalId: string): string | undefined {
    if (!TRACE_NAME.test(name)) return undefined;
    const written = this.#written.get(name);
    return written?.principalId === principalId ? written.path : undefined;
  }
}
