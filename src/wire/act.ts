// act and cancel (PROTOCOL.md §7, §10): the actions, act's params, and its three-part result.
import { NAVIGATIONS } from './navigations.ts';
import { z } from 'zod';
import { eventFields, eventOf } from './events.ts';
import { idString, navigableUrl, refField, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';
import { observation, observeShaping } from './observation.ts';
import { imageMime } from './screenshot.ts';
import { ACT_ERROR_TYPES, ACT_STATUSES, EXECUTIONS, OBSERVATION_STATES, POSTCONDITIONS } from './act-words.ts';

export { actFailed } from './act-words.ts';

export { ACT_ERROR_TYPES, ACT_STATUSES, EXECUTIONS, OBSERVATION_STATES, POSTCONDITIONS };

export const MAX_ACTIONS = 20;
export const DEFAULT_TIMEOUT_MS = 30_000;

const checkedWord = z
  .union([z.boolean(), z.string().regex(/^(true|false|1|0|checked|unchecked|yes|no)$/i, 'one of true/false/1/0/checked/unchecked/yes/no')])
  .transform((value) => (typeof value === 'boolean' ? value : /^(true|1|checked|yes)$/i.test(value)));
const coordinate = z.number().finite().min(0).max(100_000);
const delta = z.number().finite().min(-100_000).max(100_000);
const text = z.string().max(100_000);

/** A key or combo for `press` (`Enter`, `Control+A`). The server also checks the key names. */
export const keyCombo = z.string().min(1).max(64);

/** The name of a secret the server holds (`--secret NAME`): typed in place of `text`. */
export const secretName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'a secret name is 1–64 letters, digits and _');

const textOrSecret = (a: { text?: string | undefined; secret?: string | undefined }) => (a.text !== undefined) !== (a.secret !== undefined);

/**
 * The schemas of act, built around the `press` key schema and the secret name schema: the server
 * passes ones that also know every key name and every secret it holds (neither is part of the
 * protocol); the types are the same either way.
 */
export function actSchemas(key: z.ZodType<string, string> = keyCombo, secret: z.ZodType<string, string> = secretName) {
  const actions = {
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
      .object({
        action: z.literal('type'),
        ref: refField,
        text: text.min(1).optional(),
        secret: secret.optional().describe("A server secret's name, in place of text"),
        clear_first: z.boolean().optional(),
        submit: z.boolean().optional(),
      })
      .strict()
      .refine(textOrSecret, { message: 'give either text or secret', path: ['text'] }),
    fill: z
      .object({
        action: z.literal('fill'),
        ref: refField,
        text: text.optional(),
        secret: secret.optional().describe("A server secret's name, in place of text"),
      })
      .strict()
      .refine(textOrSecret, { message: 'give either text or secret', path: ['text'] }),
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
    press: z.object({ action: z.literal('press'), key, ref: refField.optional() }).strict(),
    scroll: z.object({ action: z.literal('scroll'), delta_x: delta.optional(), delta_y: delta.optional(), ref: refField.optional() })
      .strict(),
    drag: z.object({ action: z.literal('drag'), ref: refField, to_ref: refField }).strict(),
    upload: z.object({ action: z.literal('upload'), ref: refField, paths: z.array(z.string().min(1).max(4_096)).min(1).max(100) }).strict(),
    navigate: z.object({ action: z.literal('navigate'), url: navigableUrl }).strict(),
    back: z.object({ action: z.literal('back') }).strict(),
    forward: z.object({ action: z.literal('forward') }).strict(),
    reload: z.object({ action: z.literal('reload') }).strict(),
  };
  const action = z.discriminatedUnion('action', [
    actions.click,
    actions.hover,
    actions.type,
    actions.fill,
    actions.check,
    actions.select,
    actions.press,
    actions.scroll,
    actions.drag,
    actions.upload,
    actions.navigate,
    actions.back,
    actions.forward,
    actions.reload,
  ]);
  const names = Object.keys(actions) as Array<keyof typeof actions>;

  const commonFields = {
    session_id: sessionIdField,
    state_id: idString.optional().describe('The observation the refs come from'),
    target_id: targetIdField,
    expect: expectation.optional(),
    wait_for: waitFor.optional(),
    timeout_ms: z.number().int().min(0).max(60_000).optional().describe('0 or omitted: 30000'),
    request_id: z.string().min(1).max(128).optional(),
    screenshot: z.enum(['never', 'on_error', 'always']).optional(),
    // As observe's params, without their descriptions: MCP's tool list is read by a model each call.
    observe: z
      .object({
        max_elements: observeShaping.max_elements.unwrap().optional(),
        include_text: z.boolean().optional(),
        root_ref: refField.optional(),
        max_bytes: observeShaping.max_bytes.unwrap().optional(),
      })
      .strict()
      .optional()
      .describe('fresh_state shaped as observe; root_ref of state_id'),
    actions: z.array(action).min(1).max(MAX_ACTIONS).optional(),
  };

  // The inline form puts one action's fields next to the act's own: every action field is allowed
  // here, and the one named by `action` is then validated exactly (with its own paths in issues).
  const inlineFields = {
    action: z.enum(names).optional(),
    ref: z.unknown().optional(),
    x: z.unknown().optional(),
    y: z.unknown().optional(),
    button: z.unknown().optional(),
    click_count: z.unknown().optional(),
    modifiers: z.unknown().optional(),
    text: z.unknown().optional(),
    secret: z.unknown().optional(),
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
  const inlineKeys = Object.keys(inlineFields);
  /** The inline action's own fields, as given. */
  const inlineOf = (params: Record<string, unknown>) =>
    Object.fromEntries(inlineKeys.filter((key) => params[key] !== undefined).map((key) => [key, params[key]]));

  const params = z
    .object({ ...commonFields, ...inlineFields })
    .strict()
    .superRefine((params, ctx) => {
      const inline = inlineKeys.filter((key) => (params as Record<string, unknown>)[key] !== undefined);
      if (params.actions !== undefined && inline.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['actions'],
          message: `give either actions or one inline action, not both (found ${inline.join(', ')})`,
        });
        return;
      }
      const named = params.actions?.map((step) => step.action) ?? (params.action ? [params.action] : []);
      if (params.state_id === undefined && !(named.length === 1 && NAVIGATIONS.has(named[0]!))) {
        ctx.addIssue({
          code: 'custom',
          path: ['state_id'],
          message: 'a state_id is required (only a lone navigate, back, forward or reload needs none)',
        });
      }
      if (params.actions !== undefined) return;
      if (params.action === undefined) {
        ctx.addIssue({ code: 'custom', path: ['action'], message: 'an action is required (action: "click", … or actions: [...])' });
        return;
      }
      const parsed = actions[params.action].safeParse(inlineOf(params));
      if (!parsed.success) { for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: issue.path } as never); }
    });

  /** The actions of valid params, in order: the inline one or the `actions` list. */
  const actionsOf = (valid: z.infer<typeof params>): Array<z.infer<typeof action>> =>
    // Valid params hold either the list or an inline action.
    valid.actions ?? [actions[valid.action!].parse(inlineOf(valid))];

  return { actions, action, params, actionsOf };
}

const waitState = z.enum(['visible', 'hidden', 'attached', 'detached']);
export const waitFor = z.union([
  z.object({ text: z.string().min(1).max(10_000), state: waitState.optional() }).strict(),
  z.object({ url: z.string().min(1).max(8_192), state: waitState.optional() }).strict(),
  z.object({ selector: z.string().min(1).max(10_000), state: waitState.optional() }).strict(),
]);
export const expectation = z.object({ selector: z.string().min(1).max(10_000), text: z.string().max(100_000) }).strict();

const protocolAct = actSchemas();
export const actionSchema = protocolAct.action;

/** Events that happened while the act ran, as the session published them (without session_id). */
export const actEvent = z
  .discriminatedUnion('kind', [
    eventOf('dialog', eventFields),
    eventOf('popup', eventFields),
    eventOf('download', eventFields),
    eventOf('navigation', eventFields),
    eventOf('file_chooser', eventFields),
  ])
  .meta({ id: 'ActEvent' });

export const ACT_EVENT_KINDS = actEvent.options.map((option) => option.shape.kind.value);

export const hitDescription = z.object({
  role: z.string(),
  name: z.string(),
  tag: z.string(),
  ref: z.string().optional().describe('The blocker, as a ref of fresh_state (docs/tree-format.md, "Blockers")'),
  dismiss_ref: z.string().optional().describe('The control inside the blocker that dismisses it, as a ref of fresh_state'),
}).meta({ id: 'Hit' });

export const actResult = z
  .object({
    status: z.enum(ACT_STATUSES),
    execution: z.enum(EXECUTIONS),
    observation: z.enum(OBSERVATION_STATES),
    postcondition: z.enum(POSTCONDITIONS),
    completed: z.array(z.number().int().min(0)).describe('Indices of the actions that completed'),
    events: z.array(actEvent),
    fresh_state: observation.optional().describe('Present exactly when observation is "captured"'),
    error_type: z.enum(ACT_ERROR_TYPES).optional(),
    error_text: z.string().optional(),
    hit: hitDescription.optional().describe('With click_intercepted: what the point hit'),
    replayed: z.literal(true).optional().describe('Answered from the request_id record; nothing ran'),
    screenshot: z.object({ mime: imageMime, data: z.string() }).optional(),
  })
  .refine((result) => (result.fresh_state !== undefined) === (result.observation === 'captured'), {
    message: 'fresh_state is present exactly when observation is "captured"',
    path: ['fresh_state'],
  })
  .meta({ id: 'ActResult' });

export const act = wireMethod({
  name: 'act',
  summary: 'Act on what an observation saw: validated, hit-tested input, a three-part result, and a fresh observation, refusals included.',
  params: protocolAct.params,
  result: actResult,
});

export const cancel = wireMethod({
  name: 'cancel',
  summary: "Interrupt the session's running call.",
  params: z.object({ session_id: sessionIdField }).strict(),
  result: z.object({ status: z.enum(['cancellation_requested', 'idle']) }),
});
