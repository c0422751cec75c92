// The /inspector page opened in a tab of a viewer session of the test server (the server's own
// browser): evaluate in it, wait until it shows something, and take the README's screenshots of it.
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { TestClient } from './client.ts';
import { evaluate, tabOf } from './page.ts';
import type { TestServer } from './pagewire.ts';
import { decodeBase64 } from './png.ts';

const IMAGES = new URL('../../docs/images/', import.meta.url);

export class InspectorPage {
  readonly server: TestServer;
  readonly viewer: TestClient;
  readonly sessionId: string;
  readonly targetId: string;

  constructor(server: TestServer, viewer: TestClient, sessionId: string, targetId: string) {
    this.server = server;
    this.viewer = viewer;
    this.sessionId = sessionId;
    this.targetId = targetId;
  }

  /**
   * Opens `/inspector?token=…` and `query` (`&session=…`, `&trace=…`) in a new tab of the viewer
   * session; or `url`, an inspector page served elsewhere (`pagewire trace show`).
   */
  static async open(server: TestServer, viewer: TestClient, sessionId: string, query = '', url?: string): Promise<InspectorPage> {
    const { target_id } = await viewer.call('tabs.new', {
      session_id: sessionId,
      url: url ?? `${server.server.inspectorUrl}?token=${server.token}${query}`,
    });
    return new InspectorPage(server, viewer, sessionId, target_id);
  }

  eval<T>(expression: string): Promise<T> {
    return evaluate<T>(this.server, this.targetId, expression);
  }

  /** Resolves once `expression` is truthy in the page, asked again at each animation frame. */
  async until(expression: string, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (await this.eval<boolean>(`!!(${expression})`)) return;
      if (Date.now() > end) throw new Error(`the inspector never showed: ${expression}`);
      await this.eval(`new Promise((done) => requestAnimationFrame(() => done(true)))`);
    }
  }

  /** The page as the viewer's browser draws it, written to docs/images/`name` for the README. */
  async screenshot(name: string): Promise<void> {
    const shot = await this.viewer.call('screenshot', { session_id: this.sessionId, target_id: this.targetId });
    mkdirSync(IMAGES, { recursive: true });
    writeFileSync(new URL(name, IMAGES), decodeBase64(shot.data));
  }

  /** A file dropped on the page, as a person drags one from their desktop. */
  async drop(name: string, bytes: Uint8Array): Promise<void> {
    await this.eval(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(Buffer.from(bytes).toString('base64'))}), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], ${JSON.stringify(name)}, { type: 'application/zip' }));
      document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      return true;
    })()`);
  }

  /**
   * A file picked with the header's Open trace… button, as the browser's file chooser hands it
   * over (DOM.setFileInputFiles fires the input's change event).
   */
  async pick(path: string): Promise<void> {
    const session = tabOf(this.server, this.targetId).session;
    const { result } = await session.send('Runtime.evaluate', {
      expression:
        `[...document.querySelectorAll('label.open-trace input[type=file]')].find((input) => input.parentElement.closest('[hidden]') === null)`,
    });
    if (!result.objectId) throw new Error('no Open trace… input in a shown view of the inspector');
    try {
      await session.send('DOM.setFileInputFiles', { files: [path], objectId: result.objectId });
    } finally {
      await session.send('Runtime.releaseObject', { objectId: result.objectId }).catch(() => {});
    }
  }

  /** Brings the page to the front: a page behind another tab runs no animation frames, which until() waits for. */
  front(): Promise<unknown> {
    return this.viewer.call('tabs.select', { session_id: this.sessionId, target_id: this.targetId });
  }

  close(): Promise<unknown> {
    return this.viewer.call('tabs.close', { session_id: this.sessionId, target_id: this.targetId });
  }
}
