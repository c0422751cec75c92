// act and cancel (PROTOCOL.md §7, §10). Once its params are valid, act always answers with a
// result, never a JSON-RPC error.
import { z } from 'zod';
import { runAct, type ActResult } from '../../actions/act.ts';
import { parseKeyCombo } from '../../actions/keys.ts';
import type { PathPolicy } from '../../actions/paths.ts';
import { canonicalJson, RequestLog } from '../../actions/request-log.ts';
import type { Action } from '../../actions/types.ts';
import type { Tab } from '../../browser/tab.ts';
import { SETTLE_CAP_MS, SETTLE_QUIET_MS } from '../../browser/page-settle.ts';
import { settleAndTakeChanges } from '../../observe/observer.ts';
import { isServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { defineMethod, type AnyMethodDef } from '../define.ts';
import { idString, onSession, sessionIdField, targetIdField } from './common.ts';
import { captureObservation, refField } from './observe.ts';
import { navigableUrl } from './tabs.ts';

const MAX_ACTIONS = 20;
const DEFAULT_TIMEOUT_MS = 30_000;

const checkedWord = z
  .union([z.boolean(), z.string().regex(/^(true|false|1|0|checked|unchecked|yes|no)$/i, 'one of true/false/1/0/checked/unchecked/yes/no')])
  .transform((value) => (typeof value === 'boolean' ? value : /^(true|1|checked|yes)$/i.test(value)));
const coordinate = z.number().finite().min(0).max(100_000);
const delta = z.number().finite().min(-100_000).max(100_000);
const text = z.string().max(100_000);

const actionSchemas = {
  click: z
    .object({
      action: z.literal('click'),
      ref: refField.optional(),
      x: coordinate.optional(),
      y: coordinate.optional(),
      button: z.enum(['left', 'right', 'middle']).optional(),
      click_count: z.number().int().min(1).max(3).optional(),
      modifiers: z.array(z.enum(['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'])).max(5).optional(),
    })
    .strict()
    .refine((a) => (a.ref !== undefined) !== (a.x !== undefined && a.y !== undefined) && (a.x === undefined) === (a.y === undefined), {
      message: 'give either ref, or both x and y',
    }),
  hover: z.object({ action: z.literal('hover'), ref: refField }).strict(),
  type: z
    .object({ action: z.literal('type'), ref: refField, text: text.min(1), clear_first: z.boolean().optional(), submit: z.boolean().optional() })
    .strict(),
  fill: z.object({ action: z.literal('fill'), ref: refField, text }).strict(),
  check: z.object({ action: z.literal('check'), ref: refField, checked: checkedWord }).strict(),
  select: z
    .object({
      action: z.literal('select'),
      ref: refField,
      value: z.string().max(10_000).optional(),
      values: z.array(z.string().max(10_000)).min(1).max(1_000).optional(),
      label: z.string().max(10_000).optional(),
    })
    .strict()
    .refine((a) => [a.value, a.values, a.label].filter((v) => v !== undefined).length === 1, {
      message: 'give exactly one of value, values or label',
    }),
  press: z
    .object({
      action: z.literal('press'),
      key: z
        .string()
        .min(1)
        .max(64)
        .superRefine((key, ctx) => {
          // Checked here, before the state is consumed: a key name is a params matter.
          try {
            parseKeyCombo(key);
          } catch (error) {
            ctx.addIssue({ code: 'custom', message: (error as Error).message });
          }
        }),
      ref: refField.optional(),
    })
    .strict(),
  scroll: z.object({ action: z.literal('scroll'), delta_x: delta.optional(), delta_y: delta.optional(), ref: refField.optional() }).strict(),
  drag: z.object({ action: z.literal('drag'), ref: refField, to_ref: refField }).strict(),
  upload: z.object({ action: z.literal('upload'), ref: refField, paths: z.array(z.string().min(1).max(4_096)).min(1).max(100) }).strict(),
  navigate: z.object({ action: z.literal('navigate'), url: navigableUrl }).strict(),
  back: z.object({ action: z.literal('back') }).strict(),
  forward: z.object({ action: z.literal('forward') }).strict(),
  reload: z.object({ action: z.literal('reload') }).strict(),
};

const ACTION_NAMES = Object.keys(actionSchemas) as Array<keyof typeof actionSchemas>;
const actionSchema = z.discriminatedUnion('action', Object.values(actionSchemas) as unknown as [z.ZodObject, ...z.ZodObject[]]);

const waitState = z.enum(['visible', 'hidden', 'attached', 'detached']);
const waitFor = z.union([
  z.object({ text: z.string().min(1).max(10_000), state: waitState.optional() }).strict(),
  z.object({ url: z.string().min(1).max(8_192), state: waitState.optional() }).strict(),
  z.object({ selector: z.string().min(1).max(10_000), state: waitState.optional() }).strict(),
]);

const commonFields = {
  session_id: sessionIdField,
  state_id: idString.describe('The observation the refs come from'),
  target_id: targetIdField,
  expect: z.object({ selector: z.string().min(1).max(10_000), text: z.string().max(100_000) }).strict().optional(),
  wait_for: waitFor.optional(),
  timeout_ms: z.number().int().min(0).max(60_000).optional().describe('Budget in ms, 1–60000; 0 or omitted: 30000'),
  request_id: z.string().min(1).max(128).optional(),
  screenshot: z.enum(['never', 'on_error', 'always']).optional(),
  actions: z.array(actionSchema).min(1).max(MAX_ACTIONS).optional(),
};

// The inline form puts one action's fields next to the act's own: every action field is allowed
// here, and the one named by `action` is then validated exactly (with its own paths in issues).
const inlineFields = {
  action: z.enum(ACTION_NAMES).optional(),
  ref: z.unknown().optional(),
  x: z.unknown().optional(),
  y: z.unknown().optional(),
  button: z.unknown().optional(),
  click_count: z.unknown().optional(),
  modifiers: z.unknown().optional(),
  text: z.unknown().optional(),
  clear_first: z.unknown().optional(),
  submit: z.unknown().optional(),
  checked: z.unknown().optional(),
  value: z.unknown().optional(),
  values: z.unknown().optional(),
  label: z.unknown().optional(),
  key: z.unknown().optional(),
  delta_x: z.unknown().optional(),
  delta_y: z.unknown().optional(),
  to_ref: z.unknown().optional(),
  paths: z.unknown().optional(),
  url: z.unknown().optional(),
};
const INLINE_KEYS = Object.keys(inlineFields);

export const actParams = z
  .object({ ...commonFields, ...inlineFields })
  .strict()
  .superRefine((params, ctx) => {
    const inline = INLINE_KEYS.filter((key) => (params as Record<string, unknown>)[key] !== undefined);
    if (params.actions !== undefined && inline.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['actions'], message: `give either actions or one inline action, not both (found ${inline.join(', ')})` });
      return;
    }
    if (params.actions !== undefined) return;
    if (params.action === undefined) {
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'an action is required (action: "click", … or actions: [...])' });
      return;
    }
    const fields = Object.fromEntries(inline.map((key) => [key, (params as Record<string, unknown>)[key]]));
    const parsed = actionSchemas[params.action].safeParse(fields);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never);
  });

type ActParams = z.infer<typeof actParams>;

function actionsOf(params: ActParams): Action[] {
  if (params.actions) return params.actions as unknown as Action[];
  const fields = Object.fromEntries(INLINE_KEYS.filter((k) => (params as Record<string, unknown>)[k] !== undefined).map((k) => [k, (params as Record<string, unknown>)[k]]));
  return [actionSchemas[params.action!].parse(fields) as unknown as Action];
}

export interface ActMethodDeps {
  registry: SessionRegistry;
  uploads: PathPolicy;
  screenshot?: (session: Session, tab: Tab) => Promise<{ mime: string; data: string }>;
}

function conflict(requestId: string): ActResult {
  return {
    status: 'request_id_conflict',
    execution: 'not_dispatched',
    observation: 'unavailable',
    postcondition: 'not_requested',
    completed: [],
    events: [],
    error_type: 'request_id_conflict',
    error_text: `request_id ${requestId} was used before with other params`,
  };
}

export function actMethods(deps: ActMethodDeps): AnyMethodDef[] {
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
      name: 'act',
      summary: 'Act on what an observation saw: validated, hit-tested input with a fresh observation and a three-part result.',
      params: actParams,
      handler: async (params, call) => {
        const session = await deps.registry.resolve(call.principal.id, params.session_id);
        const log = logOf(session);
        const requestId = params.request_id;
        const fingerprint = canonicalJson({ ...params, session_id: session.id });
        if (requestId !== undefined) {
          const found = log.lookup(requestId, fingerprint);
          if (found.kind === 'conflict') return conflict(requestId);
          if (found.kind === 'replay') return { ...(await found.result), replayed: true as const };
        }
        const running = onSession(deps.registry, call, session.id, (s, signal) =>
          runAct(
            {
              states: s.states,
              browser: s.browser,
              worlds: s.browser.worlds,
              secrets: s.secrets,
              uploads: deps.uploads,
              signal,
              events: s.events,
              capture: (tab, frameId, captureSignal, prefetched) => {
                const frame = tab.frames.get(frameId);
                if (!frame) return Promise.reject(new Error('the frame is gone'));
                return captureObservation(s, tab, frame, { signal: captureSignal, ...(prefetched ? { prefetched } : {}) });
              },
              settleAndTake: (tab, root, frame, acknowledged, likelyChanged) =>
                settleAndTakeChanges(
                  s.browser.worlds,
                  tab,
                  root,
                  frame,
                  { quietMs: SETTLE_QUIET_MS, capMs: SETTLE_CAP_MS, afterInput: acknowledged !== undefined },
                  acknowledged,
                  likelyChanged,
                ),
              ...(deps.screenshot ? { screenshot: (tab) => deps.screenshot!(s, tab) } : {}),
              ...(call.progress ? { progress: call.progress } : {}),
            },
            {
              stateId: params.state_id,
              ...(params.target_id !== undefined ? { targetId: params.target_id } : {}),
              actions: actionsOf(params),
              ...(params.expect ? { expect: params.expect } : {}),
              ...(params.wait_for ? { waitFor: params.wait_for } : {}),
              timeoutMs: params.timeout_ms ? params.timeout_ms : DEFAULT_TIMEOUT_MS,
              screenshot: params.screenshot ?? 'never',
            },
          ),
        ).catch((error: unknown): ActResult => {
          // Cancelled while still queued, or the session closed under it.
          if (!isServerError(error, 'operation_cancelled')) throw error;
          return {
            status: 'outcome_unknown',
            execution: 'not_dispatched',
            observation: 'unavailable',
            postcondition: params.expect || params.wait_for ? 'unknown' : 'not_requested',
            completed: [],
            events: [],
            error_type: 'operation_cancelled',
            error_text: (error as Error).message,
          };
        });
        if (requestId !== undefined) log.record(requestId, fingerprint, running);
        return running;
      },
    }),
    defineMethod({
      name: 'cancel',
      summary: "Interrupt the session's running call.",
      params: z.object({ session_id: sessionIdField }).strict(),
      handler: (params, call) =>
        onSession(
          deps.registry,
          call,
          params.session_id,
          async (session) => ({ status: session.cancelRunning() ? 'cancellation_requested' : 'idle' }),
          { bypassQueue: true },
        ),
    }),
  ];
}
