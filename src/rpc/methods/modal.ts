// dialog.handle and file_chooser.resolve (PROTOCOL.md §8). Both bypass the session's queue: the
// call they release may be the one holding it.
import type { PathPolicy } from '../../actions/paths.ts';
import { callPage } from '../../browser/page-module.ts';
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { redactSecrets } from '../../util/redact.ts';
import type { AnyMethodDef } from '../define.ts';
import { dialogHandle, fileChooserResolve } from '../wire/modal.ts';
import { sessionMethod } from './common.ts';

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
        const chooser = tab.fileChooser.pending;
        if (!chooser) {
          throw new ServerError('no_modal', `no file chooser is pending in tab ${tab.targetId}`, {
            details: { target_id: tab.targetId },
          });
        }
        const paths = params.paths ?? [];
        if (paths.length > 1 && chooser.mode === 'selectSingle') {
          throw new ServerError('invalid_params', 'this file chooser takes a single file', {
            details: { issues: [{ path: 'paths', message: 'one file at most' }] },
          });
        }
        // Checked (and refused whole) before the chooser is taken: a refusal loses nothing.
        const files = paths.length > 0 ? await uploads.resolve(paths) : [];
        if (files.length > 0 && chooser.backendNodeId === undefined) {
          throw new ServerError(
            'invalid_params',
            'this chooser came from showOpenFilePicker() and cannot take files; cancel it instead',
          );
        }
        tab.fileChooser.take();
        if (chooser.backendNodeId === undefined) return { cancelled: true as const };
        if (files.length === 0) {
          // Dispatched from our world: the page's listeners get it all the same.
          const frame = tab.frames.get(chooser.frameId);
          const executionContextId = await session.browser.worlds.contextFor(chooser.session, chooser.frameId, frame?.loaderId ?? '');
          const { object } = await chooser.session.send('DOM.resolveNode', {
            backendNodeId: chooser.backendNodeId,
            executionContextId,
          });
          if (object.objectId) {
            await callPage({ session: chooser.session, executionContextId, objectId: object.objectId }, 'dispatchCancel', []);
            chooser.session.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
          }
          return { cancelled: true as const };
        }
        await chooser.session.send('DOM.setFileInputFiles', { files, backendNodeId: chooser.backendNodeId });
        return { uploaded_count: files.length };
      },
    }),
  ];
}
