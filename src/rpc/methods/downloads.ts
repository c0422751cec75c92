// downloads.list (PROTOCOL.md §9): what the session downloaded, with the same data as its
// `download` events. Tracking, renaming and cleanup live in src/browser/downloads.ts.
import { downloadData, type DownloadHistory } from '../../browser/downloads.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import type { AnyMethodDef } from '../define.ts';
import { downloadsList } from '../../wire/events.ts';
import { sessionMethod } from './common.ts';

/**
 * Where a session's downloads are read: one tracker, or the tracker of the session's browser
 * (a tracker listens to one browser connection, and a relaunched browser gets a new one).
 */
export type DownloadSource = DownloadHistory | ((session: Session) => DownloadHistory | undefined);

export function downloadMethods(registry: SessionRegistry, downloads: DownloadSource): AnyMethodDef[] {
  const historyOf = typeof downloads === 'function' ? downloads : () => downloads;
  return [
    sessionMethod(registry, {
      ...downloadsList,
      // Reading the list must not wait behind a running act (which may be the one downloading).
      bypassQueue: true,
      run: async (session) => ({ downloads: (historyOf(session)?.list(session.id) ?? []).map(downloadData) }),
    }),
  ];
}
