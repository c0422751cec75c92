// act and cancel (PROTOCOL.md §7, §10). Once its params are valid, act always answers with a
// result, never a JSON-RPC error.
import { type ActOutcome, type ActSessionEvent, runAct } from '../../actions/act.ts';
import { summarize } from '../../actions/outcome.ts';
import { parseKeyCombo } from '../../actions/keys.ts';
import type { PathPolicy } from '../../actions/paths.ts';
import { canonicalJson, RequestLog } from '../request-log.ts';
import type { Tab } from '../../browser/tab.ts';
import type { Screenshot } from '../../capture/screenshot.ts';
import { isServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { type AnyMethodDef, defineMethod } from '../define.ts';
import { act, actSchemas, cancel, DEFAULT_TIMEOUT_MS, keyCombo, secretName } from '../../wire/act.ts';
import type { SecretStore } from '../../util/secrets.ts';
import type { ActEvent, ActParams, ActResult } from '../../wire/index.ts';
import { unobservedState } from '../../actions/unobserved-state.ts';
import { onSession, sessionMethod } from './common.ts';
import { wireObservation, withinBudget } from './observation.ts';

// The protocol's schemas, with the key names of `press` and the secret names of `type` and `fill`
// checked here, before the state is consumed: a key name or an unknown secret is a params matter.
function serverActSchemas(secrets: SecretStore | undefined) {
  return actSchemas(
    keyCombo.superRefine((key, ctx) => {
      try {
        // Whether it parses is the same on every platform (ControlOrMeta is a modifier on each).
        parseKeyCombo(key, 'other');
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
    secretName.superRefine((name, ctx) => {
      if (secrets?.has(name)) return;
      const known = secrets?.names() ?? [];
      ctx.addIssue({
        code: 'custom',
        message: `there is no secret ${name} on this server (${
          known.length > 0 ? `it has ${known.join(', ')}` : 'it was started without --secret'
        })`,
      });
    }),
  );
}

/** An event as act reports it: the session's record without its session_id, kind and seq first as before. */
function wireEvent(event: ActSessionEvent): ActEvent {
  const { session_id: _session, ...rest } = event;
  return Object.assign({ kind: event.kind, seq: event.seq }, rest);
}

/**
 * The one place an act's outcome becomes the wire result (PROTOCOL.md §7); its fresh state is
 * worded as observe words an observation, with what act's `observe` param asked to see.
 */
export function actResultOf(
  outcome: ActOutcome,
  session: Pick<Session, 'id' | 'cutObservations'>,
  observe: ActParams['observe'],
): ActResult {
  return {
    status: outcome.status,
    execution: outcome.execution,
    observation: outcome.observation,
    postcondition: outcome.postcondition,
    completed: outcome.completed,
    events: outcome.events.map(wireEvent),
    ...(outcome.freshState
      ? {
        fresh_state: withinBudget(
          session,
          wireObservation(session.id, outcome.freshState, observe?.include_text !== undefined ? { includeText: observe.include_text } : {}),
          observe?.max_bytes,
        ),
      }
      : {}),
    ...(outcome.errorType !== undefined ? { error_type: outcome.errorType } : {}),
    ...(outcome.errorText !== undefined ? { error_text: outcome.errorText } : {}),
    ...(outcome.hit ? { hit: outcome.hit } : {}),
    ...(outcome.screenshot ? { screenshot: outcome.screenshot } : {}),
  };
}

export interface ActMethodDeps {
  registry: SessionRegistry;
  uploads: PathPolicy;
  /** The secrets `type` and `fill` may name. */
  secrets?: SecretStore;
  screenshot?: (session: Session, tab: Tab) => Promise<Pick<Screenshot, 'mime' | 'data'>>;
}

/**
 * A result for an act refused before it ran: a request_id conflict, cancelled while queued, or a
 * navigate without state_id that has no tab to go to.
 */
function refused(
  type: 'request_id_conflict' | 'operation_cancelled' | 'target_not_found',
  params: ActParams,
  errorText: string,
): ActResult {
  const requested = params.expect !== undefined || params.wait_for !== undefined;
  const { errorType, ...words } = summarize({
    began: false,
    acknowledged: true,
    failure: { type, check: false },
    requested,
    captured: false,
  });
  return { ...words, completed: [], events: [], ...(errorType ? { error_type: errorType } : {}), error_text: errorText };
}

export function actMethods(deps: ActMethodDeps): AnyMethodDef[] {
  const { params: actParams, actionsOf } = serverActSchemas(deps.secrets);
  const logs = new WeakMap<Session, RequestLog<ActResult>>();
  const logOf = (session: Session) => {
    let log = logs.get(session);
    if (!log) {
      log = new RequestLog<ActResult>();
      logs.set(session, log);
    }
    return log;
  };
  return [
    defineMethod({
      ...act,
      params: actParams,
      handler: async (params, call) => {
        const session = await deps.registry.resolve(call.principal.id, params.session_id);
        const log = logOf(session);
        const requestId = params.request_id;
        const fingerprint = canonicalJson({ ...params, session_id: session.id });
        if (requestId !== undefined) {
          const found = log.lookup(requestId, fingerprint);
          if (found.kind === 'conflict') {
            return refused('request_id_conflict', params, `request_id ${requestId} was used before with other params`);
          }
          if (found.kind === 'replay') return { ...(await found.result), replayed: true as const };
        }
        // Every act that answers is also a session event, so that whoever watches the session (a
        // person in the inspector, another client) sees what the agent did and how it ended.
        // A lone navigate without state_id acts on a state issued for it in the queue (unobservedState).
        let stateId = params.state_id;
        const announce = (result: ActResult): ActResult => {
          const targetId = result.fresh_state?.target_id ?? params.target_id ??
            (stateId === undefined ? undefined : session.states.get(stateId)?.targetId);
          session.events.publish({
            kind: 'act',
            ...(targetId ? { target_id: targetId } : {}),
            data: {
              actions: actionsOf(params).map((step) => step.action),
              state_id: stateId ?? '',
              status: result.status,
              execution: result.execution,
              observation: result.observation,
              postcondition: result.postcondition,
              completed: result.completed,
              ...(result.error_type ? { error_type: result.error_type } : {}),
              ...(result.error_text !== undefined ? { error_text: result.error_text } : {}),
              ...(result.fresh_state ? { fresh_state_id: result.fresh_state.state_id } : {}),
              ...(requestId !== undefined ? { request_id: requestId } : {}),
            },
          });
          return result;
        };
        const running = onSession(deps.registry, call, session.id, (s, signal) => {
          if (stateId === undefined) {
            const tab = s.tabs().find((t) => t.targetId === (params.target_id ?? s.selectedTargetId));
            stateId = tab ? unobservedState(s.states, tab) : undefined;
            if (stateId === undefined) {
              return Promise.resolve(
                refused(
                  'target_not_found',
                  params,
                  params.target_id ? `no open tab ${params.target_id} in this session` : 'this session has no open tab',
                ),
              );
            }
          }
          return runAct(
            {
              session: s,
              browser: s.browser,
              worlds: s.browser.worlds,
              secrets: s.secrets,
              uploads: deps.uploads,
              secret: (name, origin) => deps.secrets?.forOrigin(name, origin) ?? { ok: false, reason: 'unknown' },
              checkUrl: (url) => s.traffic.policy.checkUrl(url),
              blockedNavigationRule: (tab) => s.traffic.log.lastBlockedDocument(tab.targetId),
              signal,
              events: s.events,
              ...(deps.screenshot ? { screenshot: (tab) => deps.screenshot!(s, tab) } : {}),
              ...(call.progress ? { progress: call.progress } : {}),
            },
            {
              stateId,
              ...(params.target_id !== undefined ? { targetId: params.target_id } : {}),
              actions: actionsOf(params),
              ...(params.expect ? { expect: params.expect } : {}),
              ...(params.wait_for ? { waitFor: params.wait_for } : {}),
              timeoutMs: params.timeout_ms ? params.timeout_ms : DEFAULT_TIMEOUT_MS,
              screenshot: params.screenshot ?? 'never',
              observe: {
                ...(params.observe?.max_elements !== undefined ? { maxElements: params.observe.max_elements } : {}),
                ...(params.observe?.root_ref !== undefined ? { rootRef: params.observe.root_ref } : {}),
                // The act's own state, consumed by then; without one, the tab's current state.
                ...(params.state_id !== undefined ? { rootState: params.state_id } : {}),
              },
            },
          ).then((outcome) => actResultOf(outcome, s, params.observe));
        }, { step: { method: 'act', params: params as Record<string, unknown>, frames: true } }).catch((error: unknown): ActResult => {
          // Cancelled while still queued, or the session closed under it.
          if (!isServerError(error, 'operation_cancelled')) throw error;
          return refused('operation_cancelled', params, (error as Error).message);
        }).then(announce);
        if (requestId !== undefined) log.record(requestId, fingerprint, running);
        return running;
      },
    }),
    sessionMethod(deps.registry, {
      ...cancel,
      bypassQueue: true,
      run: async (session) => ({ status: session.cancelRunning() ? ('cancellation_requested' as const) : ('idle' as const) }),
    }),
  ];
}
