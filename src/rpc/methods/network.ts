// network.list (PROTOCOL.md §13): the session's network log. Asking for it is what makes the log
// record: the Network domain runs in the session's targets from the first network.list (or a
// subscription to `network` events) on.
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { AnyMethodDef } from '../define.ts';
import { networkList } from '../../wire/network.ts';
import { sessionMethod } from './common.ts';

export function networkMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...networkList,
      // A log is read while an act runs (the request it is waiting on).
      bypassQueue: true,
      run: async (session, params) => {
        const targetId = params.target_id === undefined ? undefined : session.resolveTab(params.target_id).targetId;
        await session.traffic.startRecording();
        return session.traffic.log.list({
          ...(targetId !== undefined ? { targetId } : {}),
          ...(params.since !== undefined ? { since: params.since } : {}),
        });
      },
    }),
  ];
}
