// A tab printed to PDF (PROTOCOL.md §10) with password inputs and shown secrets masked as a
// screenshot masks them (capture-masks.ts): the masks are on while Chromium prints and undone in a
// `finally`, whatever happened. The file comes back through an IO stream read in chunks, not one
// base64 string in one CDP message (a long page's PDF runs to megabytes; bench/README.md "page.pdf"
// has the measurements). Strings outside the page content are cleaned of secrets (pdf-bytes.ts).
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import type { Tab } from '../browser/tab.ts';
import type { SendOptions } from '../cdp/session.ts';
import type { KnownSecret } from '../util/redact.ts';
import type { PdfPaper } from '../wire/index.ts';
import { CaptureMasks } from './capture-masks.ts';
import { DialogGuard, modalBlockedError } from './dialog-guard.ts';
import { PRINT_MASK, STEP_TIMEOUT_MS } from './masks.ts';
import { hidePdfSecrets, pdfPageCount } from './pdf-bytes.ts';

/** Sheet sizes in inches, portrait (what Page.printToPDF takes); the mm sizes are ISO 216's. */
const MM = 1 / 25.4;
export const PAPER_INCHES: Readonly<Record<PdfPaper, { width: number; height: number }>> = {
  letter: { width: 8.5, height: 11 },
  legal: { width: 8.5, height: 14 },
  tabloid: { width: 11, height: 17 },
  a5: { width: 148 * MM, height: 210 * MM },
  a4: { width: 210 * MM, height: 297 * MM },
  a3: { width: 297 * MM, height: 420 * MM },
};

export interface PdfOptions {
  landscape?: boolean;
  paper?: PdfPaper;
  /** Chromium's page ranges (`1-3, 5`), checked by the wire schema. */
  ranges?: string;
  signal?: AbortSignal;
  /** Secrets whose fields and echoes are masked like password inputs, and cleaned from the file's strings. */
  secrets?: readonly KnownSecret[];
}

export interface PrintedPdf {
  bytes: Uint8Array;
  pages: number;
}

/** The print itself: layout and drawing of every page, longer than one renderer call. */
const PRINT_TIMEOUT_MS = 60_000;
/** Bytes asked for per IO.read: each answer is one CDP message of about 4/3 of this (base64). */
const READ_CHUNK_BYTES = 1024 * 1024;

export async function printPdf(tab: Tab, worlds: IsolatedWorlds, options: PdfOptions = {}): Promise<PrintedPdf> {
  // Renderer calls hang while a dialog is open (CDP-NOTES §7): refuse before sending any.
  const pending = tab.dialogs.pending;
  if (pending) throw modalBlockedError(pending);
  const guard = new DialogGuard(tab);
  const step: SendOptions = { timeoutMs: STEP_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}) };
  const masks = new CaptureMasks({ tab, worlds, guard, step, look: PRINT_MASK });
  const paper = PAPER_INCHES[options.paper ?? 'letter'];
  let stream: string;
  try {
    await masks.apply(options.secrets ?? []);
    const printed = await guard.run(
      tab.session.sendWith({ ...step, timeoutMs: PRINT_TIMEOUT_MS }, 'Page.printToPDF', {
        landscape: options.landscape ?? false,
        paperWidth: paper.width,
        paperHeight: paper.height,
        printBackground: true,
        ...(options.ranges !== undefined ? { pageRanges: options.ranges } : {}),
        transferMode: 'ReturnAsStream',
      }),
    );
    if (!printed.stream) throw new Error('Page.printToPDF answered without a stream');
    stream = printed.stream;
  } finally {
    await masks.remove();
  }
  // The stream is the browser's copy of the finished file: reading it needs no renderer.
  const chunks: Uint8Array[] = [];
  try {
    for (;;) {
      const read = await tab.session.sendWith(step, 'IO.read', { handle: stream, size: READ_CHUNK_BYTES });
      chunks.push(read.base64Encoded ? bytesOfBase64(read.data) : new TextEncoder().encode(read.data));
      if (read.eof) break;
    }
  } finally {
    await tab.session.sendWith({ timeoutMs: STEP_TIMEOUT_MS }, 'IO.close', { handle: stream }).catch(() => {});
  }
  const bytes = hidePdfSecrets(joined(chunks), options.secrets ?? []);
  return { bytes, pages: pdfPageCount(bytes) };
}

function bytesOfBase64(data: string): Uint8Array {
  const binary = atob(data);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

function joined(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
