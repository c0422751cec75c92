// page.pdf (PROTOCOL.md §10): the tab printed with password inputs and secrets masked
// (src/capture/pdf.ts), saved as a new file in the session's downloads folder (PdfFiles, written
// by src/runtime/saved-files.ts: this layer does no file work).
import { printPdf } from '../../capture/pdf.ts';
import { isCdpError } from '../../cdp/errors.ts';
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { pagePdf } from '../../wire/pdf.ts';
import type { AnyMethodDef } from '../define.ts';
import { captureFailure, refuseWhileModal } from './capture-errors.ts';
import { sessionMethod } from './common.ts';

/** Where a session's PDFs are written: a new file of the session's downloads folder, its absolute path. */
export interface PdfFiles {
  savePdf(sessionId: string, bytes: Uint8Array): Promise<string>;
}

export function pdfMethods(registry: SessionRegistry, files: PdfFiles): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...pagePdf,
      run: async (session, params, { signal }) => {
        const tab = session.resolveTab(params.target_id);
        refuseWhileModal(session, tab);
        let printed;
        try {
          printed = await printPdf(tab, session.browser.worlds, {
            ...(params.landscape !== undefined ? { landscape: params.landscape } : {}),
            ...(params.paper !== undefined ? { paper: params.paper } : {}),
            ...(params.ranges !== undefined ? { ranges: params.ranges } : {}),
            signal,
            secrets: session.knownSecrets(),
          });
        } catch (error) {
          // The schema let only well-formed ranges through: what Chromium still refuses is a page
          // past the document's last (its error has no code of its own, only words).
          if (params.ranges !== undefined && isCdpError(error) && error.kind === 'protocol' && error.method === 'Page.printToPDF') {
            const message = `ranges ${JSON.stringify(params.ranges)} cannot be printed (${error.message})`;
            throw new ServerError('invalid_params', message, { details: { issues: [{ path: 'ranges', message }] }, cause: error });
          }
          throw captureFailure(session, tab, error, 'print');
        }
        const path = await files.savePdf(session.id, printed.bytes);
        return { path, size: printed.bytes.length, pages: printed.pages };
      },
    }),
  ];
}
