// session.create, session.list, session.close (PROTOCOL.md §4).
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { readStorageState } from '../../sessions/storage-state.ts';
import { Deadline } from '../../util/deadline.ts';
import { parseDomainPattern, PatternError } from '../../sessions/domain-policy.ts';
import { type AnyMethodDef, defineMethod } from '../define.ts';
import { sessionClose, sessionCreate, sessionList, sessionStorageState } from '../../wire/sessions.ts';
import { sessionMethod } from './common.ts';

const STORAGE_BUDGET_MS = 30_000;

/** Domain patterns the schema cannot judge (sessions/domain-policy.ts): invalid_params naming each. */
function checkPatterns(field: 'allow_domains' | 'block_domains', patterns: readonly string[] | undefined): void {
  const issues: Array<{ path: string; message: string }> = [];
  (patterns ?? []).forEach((pattern, index) => {
    try {
      parseDomainPattern(pattern);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      issues.push({ path: `${field}.${index}`, message: error.message });
    }
  });
  if (issues.length > 0) {
    throw new ServerError('invalid_params', `Invalid params at ${issues[0]!.path}: ${issues[0]!.message}`, { details: { issues } });
  }
}

export function sessionMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    defineMethod({
      ...sessionCreate,
      handler: async (params, call) => {
        checkPatterns('allow_domains', params.allow_domains);
        checkPatterns('block_domains', params.block_domains);
        const session = await registry.create(
          call.principal.id,
          {
            name: params.name ?? 'session',
            viewport: params.viewport,
            dialogs: params.dialogs ?? 'hold',
            userAgent: params.user_agent,
            trace: params.trace === true,
            policy: {
              allow: params.allow_domains ?? [],
              block: params.block_domains ?? [],
              blockPrivateNetwork: params.block_private_network === true,
            },
            endpointUrl: params.endpoint,
          },
          params.storage_state,
        );
        session.clients.add(call.connection.id);
        const targetId = session.selectedTargetId;
        // Only if the first tab closed before this answer (its page closed it, or it crashed).
        if (targetId === undefined) throw new ServerError('target_not_found', `the first tab of session ${session.id} closed at once`);
        return { session_id: session.id, target_id: targetId, ...(session.endpoint ? { endpoint: session.endpoint } : {}) };
      },
    }),
    defineMethod({
      ...sessionList,
      handler: async (_params, call) => ({
        sessions: registry.list(call.principal.id).map((session) => ({
          session_id: session.id,
          name: session.name,
          tabs: session.tabs().length,
          created_at: session.createdAt,
          clients: session.clients.size,
          ...(session.endpoint ? { endpoint: session.endpoint } : {}),
        })),
      }),
    }),
    defineMethod({
      ...sessionClose,
      handler: async (params, call) => {
        const session = registry.get(params.session_id, call.principal.id);
        await registry.close(session, 'closed_by_client');
        return { closed: true as const };
      },
    }),
    sessionMethod(registry, {
      ...sessionStorageState,
      run: async (session, _params, { signal }) => readStorageState(session, new Deadline(STORAGE_BUDGET_MS, { signal })),
    }),
  ];
}
