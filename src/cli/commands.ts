// The client commands of `pagewire` (observe, click @3, …) on the SDK, against a running server.
// They keep the observation they printed last (state.ts), so a ref the user read is acted on in
// that observation: when the page has moved on, the server refuses and the fresh page is printed.
//
// Exit codes: 0 done; 1 an act fell short (any status but completed/verified, a refusal
// included); 2 a usage error; 3 the server could not be reached or answered with an error.
import { copyFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { connect } from '../client/index.ts';
import { ConnectionError, PagewireError } from '../client/errors.ts';
import type { Client } from '../client/client.ts';
import type { Session } from '../client/session.ts';
import { MAX_BYTES_RANGE, MAX_FIND_WORDS } from '../wire/observe-bounds.ts';
import { NAVIGATIONS } from '../wire/navigations.ts';
import type { Action, ActResult, EventKind, Observation, ObserveParams, PdfPaper, SessionEvent, WaitFor } from '../client/wire.ts';
import { flagInt, flagString, parseArgs, type ParsedArgs, UsageError } from './args.ts';
import { backgroundServer, selfCommand } from './background.ts';
import { actLine, eventLine, pageText, tabsLines } from './format.ts';
import { stateDir, StateFile, stateKey } from './state.ts';
import { usageOf } from './table.ts';

export const EXIT_OK = 0;
export const EXIT_FELL_SHORT = 1;
export const EXIT_USAGE = 2;
export const EXIT_FAILED = 3;

const DEFAULT_URL = 'ws://127.0.0.1:9333/';

type FlagSpec = Readonly<Record<string, 'value' | 'bool'>>;

const COMMON: FlagSpec = { url: 'value', session: 'value', tab: 'value', json: 'bool', help: 'bool', trace: 'bool' };
const ACT: FlagSpec = {
  'wait-text': 'value',
  'wait-url': 'value',
  'wait-selector': 'value',
  timeout: 'value',
  tree: 'bool',
  expect: 'value',
  'expect-text': 'value',
  screenshot: 'value',
  'screenshot-file': 'value',
};

interface Cx {
  /** The connection, for what is not a session's (creating one). */
  readonly client: Client;
  readonly session: Session;
  readonly state: StateFile;
  readonly args: ParsedArgs;
  readonly json: boolean;
  readonly tab: string | undefined;
}

interface CommandSpec {
  flags?: FlagSpec;
  /** Positionals: at least, at most. */
  arity: readonly [number, number];
  run(cx: Cx): Promise<number>;
}

function out(line: string): void {
  process.stdout.write(`${line}\n`);
}

function printJson(value: unknown): void {
  out(JSON.stringify(value));
}

function ref(text: string | undefined): string {
  if (text === undefined || !/^@[1-9][0-9]{0,8}$/.test(text)) {
    throw new UsageError(`a ref looks like @12 (got ${JSON.stringify(text ?? '')})`);
  }
  return text;
}

/** At most one of text, url and selector, as a condition (`what` names them for the error). */
function conditionOf(
  given: { text?: string | undefined; url?: string | undefined; selector?: string | undefined },
  what: string,
): WaitFor | undefined {
  const { text, url, selector } = given;
  if ([text, url, selector].filter((v) => v !== undefined).length > 1) throw new UsageError(`give at most one of ${what}`);
  if (text !== undefined) return { text };
  if (url !== undefined) return { url };
  if (selector !== undefined) return { selector };
  return undefined;
}

function waitFor(args: ParsedArgs): WaitFor | undefined {
  const given = { text: flagString(args, 'wait-text'), url: flagString(args, 'wait-url'), selector: flagString(args, 'wait-selector') };
  return conditionOf(given, '--wait-text, --wait-url, --wait-selector');
}

const WAIT_STATES = ['visible', 'hidden', 'attached', 'detached'] as const;

/** `wait`'s condition: TEXT, --url-glob GLOB or --selector CSS, in --state (default visible). */
function waitCondition(args: ParsedArgs): WaitFor {
  const what = 'TEXT, --url-glob GLOB, --selector CSS';
  const condition = conditionOf(
    { text: args.positionals[0], url: flagString(args, 'url-glob'), selector: flagString(args, 'selector') },
    what,
  );
  if (!condition) throw new UsageError(`wait needs one of ${what}`);
  const state = flagString(args, 'state');
  if (state === undefined) return condition;
  if (!(WAIT_STATES as readonly string[]).includes(state)) throw new UsageError(`--state is one of ${WAIT_STATES.join(', ')}`);
  return { ...condition, state: state as (typeof WAIT_STATES)[number] };
}

async function observeAndSave(cx: Cx, options: ObserveParams = {}): Promise<Observation> {
  const observation = await cx.session.observe({ ...(cx.tab ? { target_id: cx.tab } : {}), ...options });
  saveObservation(cx, observation);
  return observation;
}

function saveObservation(cx: Cx, observation: Observation): void {
  cx.state.update({ state_id: observation.state_id, target_id: observation.target_id, url: observation.url });
}

function showPage(cx: Cx, observation: Observation): void {
  if (cx.json) printJson(observation);
  else out(pageText(observation));
}

const NOTHING_RAN = new Set(['stale_observation', 'stale_reference']);

/**
 * One act on the saved observation. `onRefs`: the action names refs the user read, so it must
 * run on the observation they saw; otherwise (a key, a scroll of the page, navigation) any
 * current observation will do, and a stale one is replaced and the act tried once more.
 */
async function act(cx: Cx, what: string, action: Action | Action[], options: { onRefs: boolean; showPage?: boolean }): Promise<number> {
  const saved = cx.state.read();
  const usable = saved.state_id !== undefined && (cx.tab === undefined || cx.tab === saved.target_id);
  const wait = waitFor(cx.args);
  const timeout = flagInt(cx.args, 'timeout', { min: 1, max: 60_000 });
  const expect = expectation(cx.args);
  const screenshot = screenshotWhen(cx.args);
  const run = (state: string | undefined, target: string | undefined): Promise<ActResult> =>
    cx.session.act(action, {
      ...(state !== undefined ? { state } : {}),
      ...(target ? { target_id: target } : {}),
      ...(wait ? { wait_for: wait } : {}),
      ...(timeout ? { timeout_ms: timeout } : {}),
      ...(expect ? { expect } : {}),
      ...(screenshot ? { screenshot } : {}),
    });
  let result: ActResult;
  if (!Array.isArray(action) && NAVIGATIONS.has(action.action)) {
    // A lone navigation needs no observation (PROTOCOL.md §7): one call opens the page, or goes back.
    result = await run(undefined, cx.tab);
  } else if (!usable) {
    const observation = await observeAndSave(cx);
    if (options.onRefs) {
      if (cx.json) printJson(observation);
      else {out(
          `not run: ${what}: no observation to act on yet for this session; this is the page now (run the command again with a ref from it)\n${
            pageText(observation)
          }`,
        );}
      return EXIT_FELL_SHORT;
    }
    result = await run(observation.state_id, observation.target_id);
  } else {
    result = await run(saved.state_id!, saved.target_id);
    if (!options.onRefs && result.status === 'stale_observation') {
      const observation = await observeAndSave(cx);
      result = await run(observation.state_id, observation.target_id);
    }
  }
  if (NOTHING_RAN.has(result.status)) {
    const fresh = result.fresh_state ?? (await observeAndSave(cx));
    saveObservation(cx, fresh);
    if (cx.json) {
      printJson(result);
      printJson(fresh);
    } else out(`${actLine(what, result)}\nthe page moved on; this is it now:\n${pageText(fresh)}`);
    return EXIT_FELL_SHORT;
  }
  if (result.fresh_state) saveObservation(cx, result.fresh_state);
  else cx.state.update({ forgetObservation: true });
  const shotFile = result.screenshot ? (flagString(cx.args, 'screenshot-file') ?? 'pagewire-act.png') : undefined;
  if (result.screenshot) writeFileSync(shotFile!, Uint8Array.from(atob(result.screenshot.data), (c) => c.charCodeAt(0)));
  const ok = result.status === 'completed' || result.status === 'verified';
  if (cx.json) printJson(result);
  else {
    if (!(ok && options.showPage)) out(actLine(what, result));
    if (result.fresh_state && (options.showPage || cx.args.flags.has('tree'))) out(pageText(result.fresh_state));
    for (const event of result.events) {
      if (event.kind === 'dialog' || event.kind === 'popup' || event.kind === 'download') out(eventLine(event));
    }
    if (shotFile) out(`screenshot: ${shotFile}`);
  }
  return ok ? EXIT_OK : EXIT_FELL_SHORT;
}

/** `--expect CSS --expect-text TEXT`: the exact text of the one element CSS matches, after the act. */
function expectation(args: ParsedArgs): { selector: string; text: string } | undefined {
  const selector = flagString(args, 'expect');
  const text = flagString(args, 'expect-text');
  if (selector === undefined && text === undefined) return undefined;
  if (selector === undefined || text === undefined) throw new UsageError('--expect CSS goes with --expect-text TEXT');
  return { selector, text };
}

/** `--screenshot on_error|always`: the act's screenshot, saved to --screenshot-file (pagewire-act.png). */
function screenshotWhen(args: ParsedArgs): 'on_error' | 'always' | undefined {
  const when = flagString(args, 'screenshot');
  if (when === undefined) return undefined;
  if (when !== 'on_error' && when !== 'always') throw new UsageError('--screenshot takes on_error or always');
  return when;
}

/** A list flag: `--modifiers Shift,Control`. */
function listFlag(args: ParsedArgs, name: string): string[] | undefined {
  return flagString(args, name)?.split(',').map((word) => word.trim()).filter((word) => word !== '');
}

const MODIFIERS = ['Alt', 'Control', 'ControlOrMeta', 'Meta', 'Shift'] as const;

function clickAction(args: ParsedArgs): { action: Action; what: string } {
  const target = args.positionals[0];
  const x = flagInt(args, 'x', { min: 0, max: 100_000 });
  const y = flagInt(args, 'y', { min: 0, max: 100_000 });
  if (target !== undefined && (x !== undefined || y !== undefined)) throw new UsageError('click takes REF or --x and --y, not both');
  if (target === undefined && (x === undefined || y === undefined)) throw new UsageError('click takes REF, or --x and --y');
  const modifiers = listFlag(args, 'modifiers');
  for (const modifier of modifiers ?? []) {
    if (!(MODIFIERS as readonly string[]).includes(modifier)) throw new UsageError(`--modifiers takes ${MODIFIERS.join(', ')}`);
  }
  const button = flagString(args, 'button') ?? (args.flags.has('right') ? 'right' : undefined);
  if (button !== undefined && button !== 'left' && button !== 'right' && button !== 'middle') {
    throw new UsageError('--button takes left, right or middle');
  }
  const count = flagInt(args, 'count', { min: 1, max: 3 }) ?? (args.flags.has('double') ? 2 : undefined);
  const action = {
    action: 'click',
    ...(target !== undefined ? { ref: ref(target) } : { x: x!, y: y! }),
    ...(count !== undefined ? { click_count: count } : {}),
    ...(button !== undefined ? { button } : {}),
    ...(modifiers ? { modifiers: modifiers as Array<(typeof MODIFIERS)[number]> } : {}),
  } as Action;
  return { action, what: target !== undefined ? `click ${target}` : `click at ${x},${y}` };
}

/** `act JSON`: one action object, an array of them, or `{actions: [...]}` (a batch). */
function actionsOf(text: string): Action | Action[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`act takes JSON: ${(error as Error).message}`);
  }
  if (Array.isArray(parsed)) return parsed as Action[];
  if (parsed && typeof parsed === 'object' && Array.isArray((parsed as { actions?: unknown }).actions)) {
    return (parsed as { actions: Action[] }).actions;
  }
  if (parsed && typeof parsed === 'object' && typeof (parsed as { action?: unknown }).action === 'string') return parsed as Action;
  throw new UsageError('act takes an action {"action": …}, an array of them, or {"actions": […]}');
}

function scrollAction(args: ParsedArgs): { action: Action; what: string } {
  const [direction = 'down', amount] = args.positionals;
  const words: Record<string, [number, number]> = { down: [0, 1], up: [0, -1], right: [1, 0], left: [-1, 0] };
  const unit = words[direction];
  let pixels = 600;
  if (unit === undefined) throw new UsageError('scroll takes down, up, left or right, then optionally a number of pixels');
  if (amount !== undefined) {
    pixels = Number(amount);
    if (!/^\d+$/.test(amount) || pixels < 1 || pixels > 100_000) throw new UsageError('PIXELS is a whole number from 1 to 100000');
  }
  const target = flagString(args, 'ref');
  const action: Action = {
    action: 'scroll',
    delta_x: unit[0] * pixels,
    delta_y: unit[1] * pixels,
    ...(target ? { ref: ref(target) } : {}),
  };
  return { action, what: `scroll ${direction} ${pixels}${target ? ` in ${target}` : ''}` };
}

/** TEXT, or `--secret NAME` (a server secret, typed by name: the CLI never sees its value). */
function textOrSecret(args: ParsedArgs, text: string | undefined, verb: string): { text: string } | { secret: string } {
  const secret = flagString(args, 'secret');
  if (secret !== undefined && text !== undefined) throw new UsageError(`${verb} takes TEXT or --secret NAME, not both`);
  if (secret !== undefined) return { secret };
  if (text === undefined) throw new UsageError(`${verb} needs REF and TEXT (or --secret NAME)`);
  return { text };
}

function onOff(word: string | undefined): boolean {
  if (word === undefined || /^(on|true|yes|1|checked)$/i.test(word)) return true;
  if (/^(off|false|no|0|unchecked)$/i.test(word)) return false;
  throw new UsageError('check takes on or off');
}

const COMMANDS: Record<string, CommandSpec> = {
  observe: {
    flags: { text: 'bool', max: 'value', since: 'bool', frame: 'value', 'max-bytes': 'value', cursor: 'value' },
    arity: [0, 0],
    run: async (cx) => {
      const maxBytes = flagInt(cx.args, 'max-bytes', MAX_BYTES_RANGE);
      const cursor = flagString(cx.args, 'cursor');
      if (cursor !== undefined) {
        // The next part of an observation already made: nothing else is asked of it.
        const part = await cx.session.observe({ cursor, ...(maxBytes ? { max_bytes: maxBytes } : {}) });
        saveObservation(cx, part);
        showPage(cx, part);
        return EXIT_OK;
      }
      const max = flagInt(cx.args, 'max', { min: 1, max: 500 });
      const since = cx.args.flags.has('since') ? cx.state.read().state_id : undefined;
      const frame = flagString(cx.args, 'frame');
      const observation = await observeAndSave(cx, {
        ...(cx.args.flags.has('text') ? { include_text: true } : {}),
        ...(max ? { max_elements: max } : {}),
        ...(since ? { since } : {}),
        ...(frame ? { frame_id: frame } : {}),
        ...(maxBytes ? { max_bytes: maxBytes } : {}),
      });
      if (!cx.json && observation.diff) {
        const { added, changed, removed, text_changed } = observation.diff;
        out(
          `since the last look: ${added.length} added, ${changed.length} changed, ${removed.length} removed${
            text_changed ? ', text changed' : ''
          }`,
        );
      }
      showPage(cx, observation);
      return EXIT_OK;
    },
  },
  read: {
    flags: { max: 'value', frame: 'value' },
    arity: [0, 1],
    run: async (cx) => {
      const url = cx.args.positionals[0];
      if (url !== undefined) {
        // A lone navigation needs no observation: load the page, then read it.
        const opened = await cx.session.act({ action: 'navigate', url }, cx.tab ? { target_id: cx.tab } : {});
        if (opened.status !== 'completed' && opened.status !== 'verified') {
          if (cx.json) printJson(opened);
          else out(actLine(`open ${url}`, opened));
          return EXIT_FELL_SHORT;
        }
      }
      const max = flagInt(cx.args, 'max', { min: 1, max: 500 });
      const frame = flagString(cx.args, 'frame');
      const observation = await observeAndSave(cx, {
        format: 'markdown',
        ...(max ? { max_elements: max } : {}),
        ...(frame ? { frame_id: frame } : {}),
      });
      showPage(cx, observation);
      return EXIT_OK;
    },
  },
  find: {
    flags: { role: 'value', frame: 'value' },
    arity: [1, MAX_FIND_WORDS],
    run: async (cx) => {
      // The words as one text: `pagewire find asyncio gather` and `pagewire find "asyncio gather"` alike.
      const role = flagString(cx.args, 'role');
      const frame = flagString(cx.args, 'frame');
      const observation = await observeAndSave(cx, {
        find: cx.args.positionals.join(' '),
        ...(role ? { find_role: role } : {}),
        ...(frame ? { frame_id: frame } : {}),
      });
      showPage(cx, observation);
      return EXIT_OK;
    },
  },
  act: {
    flags: ACT,
    arity: [1, 1],
    run: (cx) => {
      const actions = actionsOf(cx.args.positionals[0]!);
      const list = Array.isArray(actions) ? actions : [actions];
      const what = list.map((step) => `${step.action}${'ref' in step && step.ref ? ` ${step.ref}` : ''}`).join(', ');
      return act(cx, what, actions, { onRefs: list.some((step) => 'ref' in step && step.ref !== undefined) });
    },
  },
  drag: {
    flags: ACT,
    arity: [2, 2],
    run: (cx) => {
      const [from, to] = cx.args.positionals as [string, string];
      return act(cx, `drag ${from} to ${to}`, { action: 'drag', ref: ref(from), to_ref: ref(to) }, { onRefs: true });
    },
  },
  upload: {
    flags: ACT,
    arity: [2, 100],
    run: (cx) => {
      const [target, ...paths] = cx.args.positionals as [string, ...string[]];
      return act(cx, `upload ${paths.length} file${paths.length === 1 ? '' : 's'} to ${target}`, {
        action: 'upload',
        ref: ref(target),
        paths,
      }, { onRefs: true });
    },
  },
  frames: {
    arity: [0, 2],
    run: async (cx) => {
      const [verb = 'list', id] = cx.args.positionals;
      if (verb === 'select') {
        if (id === undefined) throw new UsageError('frames select needs a frame id');
        const selected = await cx.session.frames.select(id);
        cx.state.update({ forgetObservation: true });
        if (cx.json) printJson(selected);
        else out(`selected frame ${selected.frame_id}`);
        return EXIT_OK;
      }
      if (verb !== 'list' || id !== undefined) throw new UsageError('frames takes list or select ID');
      const listed = await cx.session.frames.list(cx.tab ? { target_id: cx.tab } : {});
      if (cx.json) printJson(listed);
      else {
        for (const frame of listed.frames) {
          out(
            `${frame.frame_id}${frame.parent_frame_id ? ` in ${frame.parent_frame_id}` : ' (main)'} ${frame.url}${
              frame.name ? ` name=${JSON.stringify(frame.name)}` : ''
            }${frame.cross_process ? ' (cross-process)' : ''}`,
          );
        }
      }
      return EXIT_OK;
    },
  },
  cancel: {
    arity: [0, 0],
    run: async (cx) => {
      const { status } = await cx.session.cancel();
      if (cx.json) printJson({ status });
      else out(status === 'idle' ? 'nothing was running' : 'cancellation requested');
      return EXIT_OK;
    },
  },
  session: {
    flags: { name: 'value', endpoint: 'value' },
    arity: [1, 1],
    run: async (cx) => {
      const what = cx.args.positionals[0];
      const name = flagString(cx.args, 'name');
      const endpoint = flagString(cx.args, 'endpoint');
      if (what === 'new') {
        const created = await cx.client.createSession({
          ...(name !== undefined ? { name } : {}),
          ...(endpoint !== undefined ? { endpoint } : {}),
        });
        const answer = {
          session_id: created.id!,
          target_id: created.targetId,
          ...(created.endpoint ? { endpoint: created.endpoint } : {}),
        };
        if (cx.json) printJson(answer);
        else {
          const on = answer.endpoint ? ` on endpoint ${answer.endpoint}` : '';
          out(`session ${answer.session_id}${on}: give --session ${answer.session_id} (or PAGEWIRE_SESSION) to use it`);
        }
        return EXIT_OK;
      }
      if (what !== 'close') throw new UsageError('session takes new or close');
      if (name !== undefined || endpoint !== undefined) throw new UsageError('--name and --endpoint go with session new');
      const closed = await cx.session.close();
      cx.state.update({ forgetObservation: true });
      if (cx.json) printJson(closed);
      else out('session closed');
      return EXIT_OK;
    },
  },
  open: {
    flags: { ...ACT, 'new-tab': 'bool' },
    arity: [1, 1],
    run: async (cx) => {
      const url = cx.args.positionals[0]!;
      if (cx.args.flags.has('new-tab')) {
        const opened = await cx.session.tabs.new({ url, observe: true });
        const observation = opened.observation!;
        saveObservation(cx, observation);
        if (!cx.json && opened.error_text) out(`opened ${opened.target_id} with an error: ${opened.error_text}`);
        showPage(cx, observation);
        return opened.error_text ? EXIT_FELL_SHORT : EXIT_OK;
      }
      return act(cx, `open ${url}`, { action: 'navigate', url }, { onRefs: false, showPage: true });
    },
  },
  wait: {
    flags: { 'url-glob': 'value', selector: 'value', state: 'value', timeout: 'value' },
    arity: [0, 1],
    run: async (cx) => {
      const condition = waitCondition(cx.args);
      const timeout = flagInt(cx.args, 'timeout', { min: 1, max: 60_000 });
      const result = await cx.session.wait({
        ...condition,
        ...(cx.tab ? { target_id: cx.tab } : {}),
        ...(timeout ? { timeout_ms: timeout } : {}),
      });
      saveObservation(cx, result.observation);
      if (cx.json) printJson(result);
      else out(`${result.status}: ${JSON.stringify(Object.values(condition)[0])}\n${pageText(result.observation)}`);
      return result.status === 'met' ? EXIT_OK : EXIT_FELL_SHORT;
    },
  },
  click: {
    flags: { ...ACT, double: 'bool', right: 'bool', x: 'value', y: 'value', modifiers: 'value', button: 'value', count: 'value' },
    arity: [0, 1],
    run: (cx) => {
      const { action, what } = clickAction(cx.args);
      return act(cx, what, action, { onRefs: 'ref' in action && action.ref !== undefined });
    },
  },
  hover: {
    flags: ACT,
    arity: [1, 1],
    run: (cx) => act(cx, `hover ${cx.args.positionals[0]}`, { action: 'hover', ref: ref(cx.args.positionals[0]) }, { onRefs: true }),
  },
  type: {
    flags: { ...ACT, submit: 'bool', clear: 'bool', secret: 'value' },
    arity: [1, 2],
    run: (cx) => {
      const [target, text] = cx.args.positionals as [string, string | undefined];
      const entered = textOrSecret(cx.args, text, 'type');
      if ('text' in entered && entered.text === '') throw new UsageError('type needs a non-empty TEXT (fill REF "" empties a field)');
      const action: Action = {
        action: 'type',
        ref: ref(target),
        ...entered,
        ...(cx.args.flags.has('submit') ? { submit: true } : {}),
        ...(cx.args.flags.has('clear') ? { clear_first: true } : {}),
      };
      return act(cx, `type into ${target}`, action, { onRefs: true });
    },
  },
  fill: {
    flags: { ...ACT, secret: 'value' },
    arity: [1, 2],
    run: (cx) => {
      const [target, text] = cx.args.positionals as [string, string | undefined];
      return act(cx, `fill ${target}`, { action: 'fill', ref: ref(target), ...textOrSecret(cx.args, text, 'fill') }, { onRefs: true });
    },
  },
  select: {
    flags: { ...ACT, label: 'bool' },
    arity: [2, 1001],
    run: (cx) => {
      const [target, ...chosen] = cx.args.positionals as [string, ...string[]];
      if (chosen.length > 1 && cx.args.flags.has('label')) throw new UsageError('--label takes one label');
      const value = chosen[0]!;
      const choice = cx.args.flags.has('label') ? { label: value } : chosen.length > 1 ? { values: chosen } : { value };
      return act(cx, `select ${chosen.map((v) => JSON.stringify(v)).join(', ')} in ${target}`, {
        action: 'select',
        ref: ref(target),
        ...choice,
      }, { onRefs: true });
    },
  },
  check: {
    flags: ACT,
    arity: [1, 2],
    run: (cx) => {
      const [target, word] = cx.args.positionals;
      const checked = onOff(word);
      return act(cx, `${checked ? 'check' : 'uncheck'} ${target}`, { action: 'check', ref: ref(target), checked }, { onRefs: true });
    },
  },
  press: {
    flags: ACT,
    arity: [1, 2],
    run: (cx) => {
      const [key, target] = cx.args.positionals as [string, string | undefined];
      const action: Action = { action: 'press', key, ...(target !== undefined ? { ref: ref(target) } : {}) };
      return act(cx, `press ${key}${target ? ` on ${target}` : ''}`, action, { onRefs: target !== undefined });
    },
  },
  scroll: {
    flags: { ...ACT, ref: 'value' },
    arity: [0, 2],
    run: (cx) => {
      const { action, what } = scrollAction(cx.args);
      return act(cx, what, action, { onRefs: 'ref' in action && action.ref !== undefined });
    },
  },
  back: { flags: ACT, arity: [0, 0], run: (cx) => act(cx, 'back', { action: 'back' }, { onRefs: false }) },
  forward: { flags: ACT, arity: [0, 0], run: (cx) => act(cx, 'forward', { action: 'forward' }, { onRefs: false }) },
  reload: { flags: ACT, arity: [0, 0], run: (cx) => act(cx, 'reload', { action: 'reload' }, { onRefs: false }) },
  screenshot: {
    flags: { full: 'bool', ref: 'value', annotate: 'bool', refs: 'value' },
    arity: [1, 1],
    run: async (cx) => {
      const file = cx.args.positionals[0]!;
      const target = flagString(cx.args, 'ref');
      const only = flagString(cx.args, 'refs');
      // --refs names what --annotate draws: it implies it.
      const annotate = cx.args.flags.has('annotate') || only !== undefined;
      const saved = cx.state.read();
      if ((target !== undefined || annotate) && saved.state_id === undefined) {
        throw new UsageError(`--${target !== undefined ? 'ref' : 'annotate'} needs an observation first: run pagewire observe`);
      }
      const observed = { state_id: saved.state_id!, target_id: saved.target_id! };
      const shot = await cx.session.screenshot({
        ...(cx.tab ? { target_id: cx.tab } : {}),
        ...(/\.jpe?g$/i.test(file) ? { format: 'jpeg' as const } : {}),
        ...(cx.args.flags.has('full') ? { full_page: true } : {}),
        ...(target !== undefined ? { ref: ref(target), ...observed } : {}),
        // The refs drawn are those of the observation this CLI printed last.
        ...(annotate ? { annotate: true, ...observed } : {}),
        ...(only !== undefined ? { refs: only.split(',').map((r) => ref(r.trim())) } : {}),
      });
      const bytes = Uint8Array.from(atob(shot.data), (c) => c.charCodeAt(0));
      writeFileSync(file, bytes);
      const drawn = shot.state_id !== undefined ? { state_id: shot.state_id, not_drawn: shot.not_drawn ?? [] } : {};
      if (cx.json) printJson({ file, mime: shot.mime, width: shot.width, height: shot.height, bytes: bytes.length, ...drawn });
      else {
        out(`${file}: ${shot.mime} ${shot.width}x${shot.height}, ${bytes.length} bytes`);
        if (shot.state_id !== undefined) {
          const missing = shot.not_drawn ?? [];
          out(`refs of ${shot.state_id} drawn${missing.length > 0 ? `; not drawn (gone, hidden or outside): ${missing.join(' ')}` : ''}`);
        }
      }
      return EXIT_OK;
    },
  },
  pdf: {
    flags: { landscape: 'bool', paper: 'value', ranges: 'value' },
    arity: [0, 1],
    run: async (cx) => {
      const file = cx.args.positionals[0];
      const paper = flagString(cx.args, 'paper');
      const ranges = flagString(cx.args, 'ranges');
      const pdf = await cx.session.pdf({
        ...(cx.tab ? { target_id: cx.tab } : {}),
        ...(cx.args.flags.has('landscape') ? { landscape: true } : {}),
        // The server checks the paper name and says which exist.
        ...(paper !== undefined ? { paper: paper as PdfPaper } : {}),
        ...(ranges !== undefined ? { ranges } : {}),
      });
      // The server wrote it in its downloads folder; a FILE gets a copy (the CLI's server runs on this machine).
      if (file !== undefined) copyFileSync(pdf.path, file);
      const saved = file ?? pdf.path;
      if (cx.json) printJson({ file: saved, server_path: pdf.path, size: pdf.size, pages: pdf.pages });
      else out(`${saved}: PDF, ${pdf.pages} page${pdf.pages === 1 ? '' : 's'}, ${pdf.size} bytes`);
      return EXIT_OK;
    },
  },
  trace: {
    arity: [1, 2],
    run: async (cx) => {
      const [verb, file] = cx.args.positionals;
      if (verb === 'start' || verb === 'stop') {
        if (file !== undefined) throw new UsageError(`trace ${verb} takes no argument`);
        const result = verb === 'start' ? await cx.session.trace.start() : await cx.session.trace.stop();
        if (cx.json) printJson(result);
        else out('steps' in result ? `recording stopped: ${result.steps} steps` : 'recording: every call on the session is a step');
        return EXIT_OK;
      }
      if (verb !== 'export') throw new UsageError('trace takes start, stop, export [FILE] or show FILE');
      const trace = await cx.session.trace.export();
      // The server wrote it in its downloads folder; a FILE gets a copy (the CLI's server runs on this machine).
      if (file !== undefined) copyFileSync(trace.path, file);
      const saved = file ?? trace.path;
      if (cx.json) {
        printJson({
          file: saved,
          server_path: trace.path,
          size: trace.size,
          steps: trace.steps,
          frames: trace.frames,
          dropped_frames: trace.dropped_frames,
        });
      } else {
        const dropped = trace.dropped_frames > 0 ? ` (${trace.dropped_frames} older ones dropped)` : '';
        out(
          `${saved}: trace, ${trace.steps} steps, ${trace.frames} screenshots${dropped}, ${trace.size} bytes; pagewire trace show ${saved}`,
        );
      }
      return EXIT_OK;
    },
  },
  tabs: {
    arity: [0, 2],
    run: async (cx) => {
      const [verb = 'list', id] = cx.args.positionals;
      if (verb === 'list') {
        if (id !== undefined) throw new UsageError('tabs list takes no argument');
        const listed = await cx.session.tabs.list();
        if (cx.json) printJson(listed);
        else out(tabsLines(listed.tabs).join('\n'));
        return EXIT_OK;
      }
      if (id === undefined) throw new UsageError(`tabs ${verb} needs ${verb === 'new' ? 'a URL' : 'a tab id'}`);
      let result: Record<string, unknown>;
      if (verb === 'new') result = await cx.session.tabs.new({ url: id });
      else if (verb === 'select') result = await cx.session.tabs.select(id);
      else if (verb === 'close') result = await cx.session.tabs.close(id);
      else throw new UsageError('tabs takes list, new URL, select ID or close ID');
      // The saved observation was of the tab that was selected: observe again before acting.
      if (verb !== 'close' || cx.state.read().target_id === id) cx.state.update({ forgetObservation: true });
      if (cx.json) printJson(result);
      else {out(
          verb === 'close'
            ? `closed ${id}`
            : `${verb === 'new' ? 'opened' : 'selected'} ${String(result['target_id'])}${
              result['error_text'] ? ` (${String(result['error_text'])})` : ''
            }`,
        );}
      return EXIT_OK;
    },
  },
  dialog: {
    arity: [1, 2],
    run: async (cx) => {
      const [verb, text] = cx.args.positionals as [string, string | undefined];
      if (verb !== 'accept' && verb !== 'dismiss') throw new UsageError('dialog takes accept or dismiss');
      if (text !== undefined && verb !== 'accept') throw new UsageError('only accept takes a prompt TEXT');
      const result = await cx.session.handleDialog({
        accept: verb === 'accept',
        ...(text !== undefined ? { prompt_text: text } : {}),
        ...(cx.tab ? { target_id: cx.tab } : {}),
      });
      if (cx.json) printJson(result);
      else out(`${result.action} ${result.dialog_type} ${JSON.stringify(result.message)}`);
      return EXIT_OK;
    },
  },
  events: {
    flags: { follow: 'bool', kinds: 'value', all: 'bool' },
    arity: [0, 0],
    run: (cx) => showEvents(cx),
  },
};

// A record, so that a kind added to the wire and missing here does not compile (the CLI does not
// load the wire's schemas, which would cost its start-up).
const KIND_SET: Record<EventKind, true> = {
  dialog: true,
  file_chooser: true,
  download: true,
  popup: true,
  tab_closed: true,
  navigation: true,
  console: true,
  crash: true,
  session_closed: true,
  act: true,
  network: true,
};
const KINDS = Object.keys(KIND_SET) as EventKind[];

/**
 * The events after the last seq this command showed (every retained one the first time, or with
 * --all). The stream subscribes to every kind (network included, by name) and filters here, so that the replay's end is
 * the event whose seq the server reported as its newest; --follow then stays for live ones.
 */
async function showEvents(cx: Cx): Promise<number> {
  const kindsText = flagString(cx.args, 'kinds');
  const kinds = kindsText?.split(',').map((k) => k.trim());
  for (const kind of kinds ?? []) {
    if (!KINDS.includes(kind as EventKind)) throw new UsageError(`unknown event kind ${kind} (kinds: ${KINDS.join(', ')})`);
  }
  const follow = cx.args.flags.has('follow');
  const afterSeq = cx.args.flags.has('all') ? 0 : (cx.state.read().event_seq ?? 0);
  const controller = new AbortController();
  // Every kind by name: `network` is not among the default kinds, and the replay must reach the newest seq.
  const stream = cx.session.events({ afterSeq, kinds: KINDS, signal: controller.signal });
  await stream.ready;
  const head = stream.headSeq ?? afterSeq;
  let shown = afterSeq;
  const show = (event: SessionEvent) => {
    shown = Math.max(shown, event.seq);
    if (kinds && !kinds.includes(event.kind)) return;
    if (cx.json) printJson(event);
    else out(eventLine(event));
  };
  const remember = () => {
    if (!kinds) cx.state.update({ event_seq: shown });
  };
  if (!follow) {
    if (head > afterSeq) {
      for await (const event of stream) {
        show(event);
        if (event.seq >= head) break;
      }
    }
    shown = Math.max(shown, head);
    remember();
    await stream.return();
    return EXIT_OK;
  }
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    for await (const event of stream) {
      show(event);
      remember();
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  remember();
  return EXIT_OK;
}

function fail(message: string): number {
  process.stderr.write(`pagewire: ${message}\n`);
  return EXIT_FAILED;
}

export async function runClient(name: string, argv: string[]): Promise<number> {
  const spec = COMMANDS[name];
  if (!spec) return fail(`no client command ${name}`);
  const usage = `usage: pagewire ${usageOf(name) ?? name} [--url URL] [--session ID] [--tab ID] [--json] [--trace]`;
  let args: ParsedArgs;
  try {
    args = parseArgs(argv, { ...COMMON, ...spec.flags });
    if (args.flags.has('help')) {
      out(usage);
      return EXIT_OK;
    }
    const [min, max] = spec.arity;
    if (args.positionals.length < min || args.positionals.length > max) {
      throw new UsageError(`${name} takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}`);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`pagewire ${name}: ${error.message}\n${usage}\n`);
    return EXIT_USAGE;
  }
  const named = flagString(args, 'url') ?? (process.env['PAGEWIRE_URL'] || undefined);
  const sessionId = flagString(args, 'session') ?? (process.env['PAGEWIRE_SESSION'] || undefined);
  const token = process.env['PAGEWIRE_TOKEN']?.split(',')[0] || undefined;
  let url: string;
  if (named !== undefined) {
    url = named;
    try {
      new URL(url);
    } catch {
      process.stderr.write(`pagewire ${name}: --url must be a ws:// URL (got ${JSON.stringify(url)})\n`);
      return EXIT_USAGE;
    }
  } else if (token !== undefined) {
    // A token and no URL: a server started by hand on the default port.
    url = DEFAULT_URL;
  } else {
    try {
      url = (await backgroundServer({ dir: stateDir(process.env), command: selfCommand() })).url;
    } catch (error) {
      return fail(`could not start a background server: ${(error as Error).message}`);
    }
  }
  let client;
  try {
    client = await connect(url, { ...(token ? { token } : {}), reconnect: { giveUpAfterMs: 10_000 } });
  } catch (error) {
    return fail(
      named === undefined && token === undefined
        ? `${(error as Error).message}; the background server did not answer: \`pagewire stop\`, then try again`
        : `${(error as Error).message}; is a server running? start one with \`npx pagewire\` and set PAGEWIRE_URL to the URL it prints`,
    );
  }
  const cx: Cx = {
    client,
    session: client.session(sessionId),
    state: new StateFile({ dir: stateDir(process.env), key: stateKey(url, sessionId) }),
    args,
    json: args.flags.has('json'),
    tab: flagString(args, 'tab'),
  };
  try {
    // --trace: the session records from this command on (trace.start is idempotent).
    if (args.flags.has('trace') && name !== 'trace') await cx.session.trace.start();
    return await spec.run(cx);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`pagewire ${name}: ${error.message}\n${usage}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof PagewireError) {
      const detail = error instanceof ConnectionError ? '' : ` (${error.error_type})`;
      if (cx.json) {
        printJson({
          error: {
            error_type: error.error_type,
            message: error.message,
            ...(error.code !== undefined ? { code: error.code } : {}),
            data: error.data,
          },
        });
      }
      return fail(`${error.message}${detail}`);
    }
    throw error;
  } finally {
    client.close();
  }
}
