// dialog.handle and file_chooser.resolve (PROTOCOL.md §8). Both bypass the session's queue: the
// call they release may be the one holding it.
import type { PathPolicy } from '../../actions/paths.ts';
import type { PendingChooser } from '../../browser/file-chooser.ts';
import type { IsolatedWorlds } from '../../browser/isolated-worlds.ts';
import { callPage } from '../../browser/page-module.ts';
import { isCdpError } from '../../cdp/errors.ts';
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { redactSecrets } from '../../util/redact.ts';
import type { AnyMethodDef } from '../define.ts';
import { dialogHandle, fileChooserResolve } from '../../wire/modal.ts';
import { sessionMethod } from './common.ts';

/** Cancels the chooser as a user's Escape would: the input gets `cancel`, from our world (the page's listeners get it all the same). */
async function dispatchCancel(
  worlds: IsolatedWorlds,
  loaderId: string | undefined,
  chooser: PendingChooser,
  backendNodeId: number,
): Promise<void> {
  const executionContextId = await worlds.contextFor(chooser.session, chooser.frameId, loaderId ?? '');
  const { object } = await chooser.session.send('DOM.resolveNode', { backendNodeId, executionContextId });
  if (!object.objectId) return;
  await callPage({ session: chooser.session, executionContextId, objectId: object.objectId }, 'dispatchCancel', []);
  chooser.session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
}

export function modalMethods(registry: SessionRegistry, uploads: PathPolicy): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...dialogHandle,
      bypassQueue: true,
      run: async (session, params) => {
        const tab = session.resolveTab(params.target_id);
        const dialog = await tab.dialogs.handle(params.accept, params.prompt_text);
        if (!dialog) {
          throw new ServerError('no_modal', `no dialog is open in tab ${tab.targetId}`, { details: { target_id: tab.targetId } });
        }
        return {
          action: params.accept ? ('accepted' as const) : ('dismissed' as const),
          dialog_type: dialog.type,
          message: redactSecrets(dialog.message, session.secrets),
        };
      },
    }),
    sessionMethod(registry, {
      ...fileChooserResolve,
      bypassQueue: true,
      run: async (session, params) => {
        const tab = session.resolveTab(params.target_id);
        // Everything happens inside the resolution: whatever fails leaves the chooser pending.
        const resolved = await tab.fileChooser.resolve(async (chooser) => {
          const paths = params.paths ?? [];
          if (paths.length > 1 && chooser.mode === 'selectSingle') {
            throw new ServerError('invalid_params', 'this file chooser takes a single file', {
              details: { issues: [{ path: 'paths', message: 'one file at most' }] },
            });
          }
          const files = paths.length > 0 ? await uploads.resolve(paths) : [];
          if (files.length > 0 && chooser.backendNodeId === undefined) {
            throw new ServerError(
              'invalid_params',
              'this chooser came from showOpenFilePicker() and cannot take files; cancel it instead',
            );
          }
          if (chooser.backendNodeId === undefined) return { cancelled: true as const };
          if (files.length === 0) {
            // A cancel always ends the chooser: an input the page has let go of cannot be told,
            // and a chooser nobody can end would block the tab until it navigates.
            await dispatchCancel(session.browser.worlds, tab.frames.get(chooser.frameId)?.loaderId, chooser, chooser.backendNodeId)
              .catch(() => {});
            return { cancelled: true as const };
          }
          try {
            await chooser.session.send('DOM.setFileInputFiles', { files, backendNodeId: chooser.backendNodeId });
          } catch (error) {
            if (!isCdpError(error) || error.isTargetGone) throw error;
            // The page changed the input under the chooser (no longer a file input, say).
            throw new ServerError(
              'invalid_params',
              `the file input of this chooser no longer takes files (${error.message}); nothing was uploaded and the chooser ` +
                'is still pending: cancel it (no paths) or try again',
              { details: { issues: [{ path: 'paths', message: 'the chooser could not take these files' }] } },
            );
          }
          return { uploaded_count: files.length };
        });
        if (!resolved) {
          throw new ServerError('no_modal', `no file chooser is pending in tab ${tab.targetId}`, {
            details: { target_id: tab.targetId },
          });
        }
        return resolved;
      },
    }),
  ];
}
