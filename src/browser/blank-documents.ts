// A helper tab whose every request is answered here with an empty page: navigating it to an origin
// gives a document of that origin (its localStorage) without a byte leaving the browser and without
// any page script (Playwright reads and writes storage state the same way). Service workers are
// bypassed so that none answers instead.
import type { CdpSession } from '../cdp/session.ts';

const EMPTY_PAGE = btoa('<!doctype html><title></title>');

export function serveBlankDocuments(session: CdpSession): Promise<unknown>[] {
  session.on('Fetch.requestPaused', (event) => {
    const document = event.resourceType === 'Document';
    session
      .send('Fetch.fulfillRequest', {
        requestId: event.requestId,
        responseCode: document ? 200 : 404,
        responseHeaders: [{ name: 'content-type', value: 'text/html; charset=utf-8' }],
        body: document ? EMPTY_PAGE : '',
      })
      .catch(() => {});
  });
  return [
    session.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }),
    session.send('Network.setBypassServiceWorker', { bypass: true }),
    session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }),
  ];
}
