// Key names and characters → `Input.dispatchKeyEvent` parameters (PROTOCOL.md §7 `press` and
// `type`, CDP-NOTES §5). Pure data: the act layer sends what this returns.
//
// Why a table rather than just `{key}`: Chromium acts on windowsVirtualKeyCode (editing, form
// submission, Tab focus), pages read `key`/`code`, and only a keyDown carrying `text` inserts a
// character (Enter needs "\r"). The table is a US keyboard layout, which is what headless
// Chromium assumes. Shortcuts follow the browser's platform (ControlOrMeta, editing commands).

import type { BrowserPlatform } from '../browser/platform.ts';

/** CDP modifier bits (Input.dispatchKeyEvent `modifiers`). */
export const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 } as const;
export type ModifierName = keyof typeof MODIFIER_BITS;

export interface KeyDefinition {
  key: string;
  code: string;
  /** windowsVirtualKeyCode (also sent as nativeVirtualKeyCode). 0 for characters off the layout. */
  keyCode: number;
  /** The character the key inserts; absent for keys that insert nothing (Tab, arrows, shortcuts). */
  text?: string;
  /** 1 = left (modifier keys), as KeyboardEvent.location. */
  location?: number;
}

export interface ParsedKeyCombo {
  key: KeyDefinition;
  /** Everything held while `key` goes down: explicit modifiers, implied Shift, the key itself if a modifier. */
  modifiers: number;
  /** The modifier keys to press before `key` (in the order written) and release after it. */
  modifierKeys: KeyDefinition[];
}

/**
 * Parameters of one Input.dispatchKeyEvent call. Structurally a subset of the generated
 * `Cdp.Input.DispatchKeyEventParams`; the index signature lets it pass where a plain
 * `Record<string, unknown>` is expected (cdp.send with a client-given method, logs).
 */
export interface KeyEventParams {
  [field: string]: unknown;
  type: 'keyDown' | 'rawKeyDown' | 'keyUp';
  modifiers: number;
  key: string;
  code: string;
  windowsVirtualKeyCode: number;
  nativeVirtualKeyCode: number;
  text?: string;
  unmodifiedText?: string;
  location?: number;
  commands?: string[];
}

/** An unusable key combo. The message lists valid names, for a model to correct itself. */
export class KeyError extends Error {
  constructor(message: string) {
    super(`${message}. ${KEY_HELP}`);
    this.name = 'KeyError';
  }
}

const KEY_HELP = 'Use a key name (Enter, Tab, Escape, Backspace, Delete, Space, Plus, ArrowUp/Down/Left/Right, ' +
  'Home, End, PageUp, PageDown, Insert, F1-F24) or one character (a, A, 1, /, .), optionally after ' +
  'modifiers joined with "+" (Alt, Control, ControlOrMeta, Meta, Shift), e.g. "Enter", "Shift+Tab", ' +
  '"Control+A", "Control++"';

interface LayoutKey {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
  location?: number;
  /** The key value (and text) with Shift held, for printable keys. */
  shiftKey?: string;
}

const MODIFIER_KEYS: Record<ModifierName, LayoutKey> = {
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18, location: 1 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17, location: 1 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91, location: 1 },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 },
};

// Keys that insert nothing (Enter excepted), by their KeyboardEvent.key value.
const NAMED_KEYS: LayoutKey[] = [
  { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  { key: 'Tab', code: 'Tab', keyCode: 9 },
  { key: 'Escape', code: 'Escape', keyCode: 27 },
  { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  { key: 'Delete', code: 'Delete', keyCode: 46 },
  { key: 'Insert', code: 'Insert', keyCode: 45 },
  { key: 'Home', code: 'Home', keyCode: 36 },
  { key: 'End', code: 'End', keyCode: 35 },
  { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  { key: 'CapsLock', code: 'CapsLock', keyCode: 20 },
  { key: 'ContextMenu', code: 'ContextMenu', keyCode: 93 },
  ...Array.from({ length: 24 }, (_, i) => ({ key: `F${i + 1}`, code: `F${i + 1}`, keyCode: 112 + i })),
];

// Printable keys: [unshifted, shifted, code, windowsVirtualKeyCode].
const PRINTABLE: Array<[string, string, string, number]> = [
  ...Array.from({ length: 26 }, (_, i): [string, string, string, number] => {
    const upper = String.fromCharCode(65 + i);
    return [upper.toLowerCase(), upper, `Key${upper}`, 65 + i];
  }),
  ...Array.from({ length: 10 }, (_, i): [string, string, string, number] => [String(i), ')!@#$%^&*('[i]!, `Digit${i}`, 48 + i]),
  ['`', '~', 'Backquote', 192],
  ['-', '_', 'Minus', 189],
  ['=', '+', 'Equal', 187],
  ['[', '{', 'BracketLeft', 219],
  [']', '}', 'BracketRight', 221],
  ['\\', '|', 'Backslash', 220],
  [';', ':', 'Semicolon', 186],
  ["'", '"', 'Quote', 222],
  [',', '<', 'Comma', 188],
  ['.', '>', 'Period', 190],
  ['/', '?', 'Slash', 191],
];

const SPACE: LayoutKey = { key: ' ', code: 'Space', keyCode: 32, text: ' ' };

/** Character → the key that types it, and whether Shift is needed. */
const CHARS = new Map<string, { base: LayoutKey; shifted: boolean }>([[' ', { base: SPACE, shifted: false }]]);
for (const [plain, shifted, code, keyCode] of PRINTABLE) {
  const base: LayoutKey = { key: plain, code, keyCode, text: plain, shiftKey: shifted };
  CHARS.set(plain, { base, shifted: false });
  CHARS.set(shifted, { base, shifted: true });
}

/** Lower-cased multi-character key names → a named key, or the character it stands for. */
const NAMES = new Map<string, LayoutKey | string>([
  ['space', ' '],
  ['plus', '+'],
  ['esc', NAMED_KEYS[2]!],
]);
for (const key of NAMED_KEYS) NAMES.set(key.key.toLowerCase(), key);

/** Lower-cased modifier names (and the two aliases models write most) → modifier. */
function modifierNamed(name: string, platform: BrowserPlatform): ModifierName | undefined {
  switch (name.toLowerCase()) {
    case 'alt':
      return 'Alt';
    case 'control':
    case 'ctrl':
      return 'Control';
    case 'meta':
    case 'cmd':
      return 'Meta';
    case 'shift':
      return 'Shift';
    case 'controlormeta':
      return primaryModifier(platform);
    default:
      return undefined;
  }
}

/** The modifier of the platform's shortcuts (copy, select all): Meta (⌘) on macOS, else Control. */
export function primaryModifier(platform: BrowserPlatform): 'Meta' | 'Control' {
  return platform === 'mac' ? 'Meta' : 'Control';
}

// "One character" means one user-perceived character: é written as e + accent, 👍🏽, 👨‍👩‍👧.
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });

function isOneCharacter(text: string): boolean {
  return [...GRAPHEMES.segment(text)].length === 1;
}

const SHORTCUT_BITS = MODIFIER_BITS.Alt | MODIFIER_BITS.Control | MODIFIER_BITS.Meta;

function definition(key: LayoutKey, text: string | undefined): KeyDefinition {
  const out: KeyDefinition = { key: key.key, code: key.code, keyCode: key.keyCode };
  if (text !== undefined) out.text = text;
  if (key.location !== undefined) out.location = key.location;
  return out;
}

/** Splits "Control+Shift+A" into its parts; "+" as the key is "Plus", "+" alone or a trailing "++". */
function splitCombo(combo: string): string[] {
  if (combo === '+') return ['+'];
  if (combo.endsWith('++')) return [...combo.slice(0, -2).split('+'), '+'];
  return combo.split('+');
}

/**
 * Parses a key combo such as `Enter`, `Shift+Tab`, `Control+A`, `ControlOrMeta+a`, `Control++`.
 * Modifier names are case-insensitive; multi-letter key names too (`enter`, `pageup`); single
 * characters are taken as written. Rules, chosen to match what a US keyboard produces:
 * - `A` or `!` alone type that character and set the Shift bit (no separate Shift key event);
 * - with Control, Alt or Meta held a letter is the plain key (`Control+A` is key "a", code KeyA:
 *   a shortcut, not a capital), and nothing is inserted (no text);
 * - with Shift held a printable key gives its shifted character (`Shift+1` is "!").
 */
export function parseKeyCombo(combo: string, platform: BrowserPlatform): ParsedKeyCombo {
  if (typeof combo !== 'string' || combo.length === 0) throw new KeyError('Empty key');
  const parts = splitCombo(combo);
  const keyToken = parts.pop()!;
  let modifiers = 0;
  const held: ModifierName[] = [];
  for (const part of parts) {
    const name = modifierNamed(part.trim(), platform);
    if (name === undefined) {
      throw new KeyError(part.trim() === '' ? `Empty part in key "${combo}"` : `"${part}" in "${combo}" is not a modifier`);
    }
    if (!held.includes(name)) held.push(name);
    modifiers |= MODIFIER_BITS[name];
  }
  const modifierKeys = held.map((name) => definition(MODIFIER_KEYS[name], undefined));

  // A literal space is the Space key; anything else may carry stray spaces ("Control + A").
  const token = keyToken === ' ' ? ' ' : keyToken.trim();
  if (token === '') throw new KeyError(`Missing key after the last "+" in "${combo}"`);

  const asModifier = modifierNamed(token, platform);
  if (asModifier !== undefined) {
    // Pressing a modifier on its own (e.g. "Shift"): it is held while it goes down.
    modifiers |= MODIFIER_BITS[asModifier];
    return { key: definition(MODIFIER_KEYS[asModifier], undefined), modifiers, modifierKeys };
  }

  let char: string | undefined;
  if (isOneCharacter(token)) {
    char = token;
  } else {
    const named = NAMES.get(token.toLowerCase());
    if (named === undefined) throw new KeyError(`Unknown key "${token}" in "${combo}"`);
    if (typeof named === 'string') char = named;
    else {
      const text = modifiers & SHORTCUT_BITS ? undefined : named.text;
      return { key: definition(named, text), modifiers, modifierKeys };
    }
  }

  const shortcut = (modifiers & SHORTCUT_BITS) !== 0;
  const entry = CHARS.get(char);
  if (entry === undefined) {
    // Off the US layout (é, ß, emoji): still pressable as a key that types itself.
    if (/^\p{Cc}$/u.test(char)) throw new KeyError(`Unknown key ${JSON.stringify(char)} in ${JSON.stringify(combo)}`);
    const def: KeyDefinition = { key: char, code: '', keyCode: 0 };
    if (!shortcut) def.text = char;
    return { key: def, modifiers, modifierKeys };
  }
  const { base } = entry;
  let shifted = entry.shifted;
  if (shortcut && base.code.startsWith('Key')) shifted = false;
  if (modifiers & MODIFIER_BITS.Shift && base.shiftKey !== undefined) shifted = true;
  if (shifted) modifiers |= MODIFIER_BITS.Shift;
  const key = shifted ? base.shiftKey! : base.key;
  return { key: definition({ ...base, key }, shortcut ? undefined : key), modifiers, modifierKeys };
}

/**
 * Chromium's editing commands for the usual shortcuts. Chromium on Linux handles these keys by
 * itself (CDP-NOTES §5: Ctrl+A worked either way); on macOS they are menu commands that a
 * synthetic key event does not reach, so the command has to travel with the event.
 */
function editingCommands(code: string, modifiers: number, platform: BrowserPlatform): string[] | undefined {
  const primary = MODIFIER_BITS[primaryModifier(platform)];
  if ((modifiers & primary) === 0 || (modifiers & ~primary & ~MODIFIER_BITS.Shift) !== 0) return undefined;
  const shift = (modifiers & MODIFIER_BITS.Shift) !== 0;
  switch (code) {
    case 'KeyA':
      return shift ? undefined : ['selectAll'];
    case 'KeyC':
      return shift ? undefined : ['copy'];
    case 'KeyX':
      return shift ? undefined : ['cut'];
    case 'KeyV':
      return shift ? undefined : ['paste'];
    case 'KeyZ':
      return [shift ? 'redo' : 'undo'];
    case 'KeyY':
      return shift || platform === 'mac' ? undefined : ['redo'];
    default:
      return undefined;
  }
}

function keyEvent(type: KeyEventParams['type'], def: KeyDefinition, modifiers: number): KeyEventParams {
  const event: KeyEventParams = {
    type,
    modifiers,
    key: def.key,
    code: def.code,
    windowsVirtualKeyCode: def.keyCode,
    nativeVirtualKeyCode: def.keyCode,
  };
  if (type === 'keyDown' && def.text !== undefined) {
    event.text = def.text;
    event.unmodifiedText = def.text;
  }
  if (def.location !== undefined) event.location = def.location;
  return event;
}

function bitOf(def: KeyDefinition): number {
  const name = def.key as ModifierName;
  return def.location === 1 && Object.hasOwn(MODIFIER_BITS, name) ? MODIFIER_BITS[name] : 0;
}

/**
 * The dispatchKeyEvent calls for pressing a combo: each modifier goes down (rawKeyDown), the key
 * goes down (keyDown when it inserts text, else rawKeyDown) and up, the modifiers come up in
 * reverse. `modifiers` on each event is what is held at that moment, as a real keyboard reports
 * it (a Shift keydown already has shiftKey, its keyup no longer does).
 */
export function keyEventsFor(combo: string, platform: BrowserPlatform): KeyEventParams[] {
  const parsed = parseKeyCombo(combo, platform);
  const events: KeyEventParams[] = [];
  // An implied Shift (a bare "A") belongs to the key's own events only: no Shift key went down.
  let held = 0;
  for (const def of parsed.modifierKeys) {
    held |= bitOf(def);
    events.push(keyEvent('rawKeyDown', def, held));
  }
  const down = keyEvent(parsed.key.text === undefined ? 'rawKeyDown' : 'keyDown', parsed.key, parsed.modifiers);
  const commands = editingCommands(parsed.key.code, parsed.modifiers, platform);
  if (commands) down.commands = commands;
  events.push(down);
  events.push(keyEvent('keyUp', parsed.key, parsed.modifiers & ~bitOf(parsed.key)));
  for (const def of [...parsed.modifierKeys].reverse()) {
    held &= ~bitOf(def);
    events.push(keyEvent('keyUp', def, held));
  }
  return events;
}

/**
 * The events that type one character of text (a code point or a grapheme cluster). A character
 * on the US layout is its key, with the Shift bit for capitals and shifted symbols; "\n" (or
 * "\r", "\r\n") is Enter and "\t" is the Tab key, which moves focus as a user's Tab would.
 * Anything else (é, 漢, 👍🏽) is one keyDown carrying the text and a keyUp, with no key code:
 * Chromium inserts the text and the page still sees keydown/keypress/input/keyup.
 */
export function charKeyEvents(char: string): KeyEventParams[] {
  if (typeof char !== 'string' || !isOneCharacter(char)) {
    throw new KeyError(`charKeyEvents needs exactly one character, got ${JSON.stringify(char)}`);
  }
  let def: KeyDefinition;
  let modifiers = 0;
  const entry = CHARS.get(char);
  if (char === '\n' || char === '\r' || char === '\r\n') {
    def = definition(NAMED_KEYS[0]!, '\r');
  } else if (char === '\t') {
    def = definition(NAMED_KEYS[1]!, undefined);
  } else if (entry !== undefined) {
    def = definition({ ...entry.base, key: char }, char);
    if (entry.shifted) modifiers = MODIFIER_BITS.Shift;
  } else {
    def = { key: char, code: '', keyCode: 0, text: char };
  }
  return [keyEvent(def.text === undefined ? 'rawKeyDown' : 'keyDown', def, modifiers), keyEvent('keyUp', def, modifiers)];
}
