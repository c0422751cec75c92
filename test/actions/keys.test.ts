import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { BrowserPlatform } from '../../src/browser/platform.ts';
import { charKeyEvents, KeyError, type KeyEventParams, keyEventsFor, MODIFIER_BITS, parseKeyCombo } from '../../src/actions/keys.ts';

const { Alt, Control, Meta, Shift } = MODIFIER_BITS;

/** type/key/modifiers/text of each event: the parts a page's keyboard handling depends on. */
function brief(events: KeyEventParams[]): string[] {
  return events.map((e) =>
    `${e.type} ${e.key}${e.modifiers ? ` m${e.modifiers}` : ''}${e.text !== undefined ? ` text=${JSON.stringify(e.text)}` : ''}`
  );
}

function throwsKeyError(fn: () => unknown, includes?: string): void {
  try {
    fn();
  } catch (error) {
    assert.instance(error, KeyError);
    assert.is((error as Error).name, 'KeyError');
    if (includes !== undefined) assert.ok((error as Error).message.includes(includes), (error as Error).message);
    return;
  }
  assert.unreachable('expected a KeyError');
}

const s = suite('keys');

s('CDP modifier bits: Alt=1, Control=2, Meta=4, Shift=8', () => {
  assert.equal(MODIFIER_BITS, { Alt: 1, Control: 2, Meta: 4, Shift: 8 });
});

s('named keys: codes, key codes, and only Enter/Space insert text', () => {
  const cases: Array<[string, string, string, number, string | undefined]> = [
    ['Enter', 'Enter', 'Enter', 13, '\r'],
    ['Tab', 'Tab', 'Tab', 9, undefined],
    ['Space', ' ', 'Space', 32, ' '],
    [' ', ' ', 'Space', 32, ' '],
    ['Escape', 'Escape', 'Escape', 27, undefined],
    ['Backspace', 'Backspace', 'Backspace', 8, undefined],
    ['Delete', 'Delete', 'Delete', 46, undefined],
    ['Insert', 'Insert', 'Insert', 45, undefined],
    ['Home', 'Home', 'Home', 36, undefined],
    ['End', 'End', 'End', 35, undefined],
    ['PageUp', 'PageUp', 'PageUp', 33, undefined],
    ['PageDown', 'PageDown', 'PageDown', 34, undefined],
    ['ArrowLeft', 'ArrowLeft', 'ArrowLeft', 37, undefined],
    ['ArrowUp', 'ArrowUp', 'ArrowUp', 38, undefined],
    ['ArrowRight', 'ArrowRight', 'ArrowRight', 39, undefined],
    ['ArrowDown', 'ArrowDown', 'ArrowDown', 40, undefined],
    ['F1', 'F1', 'F1', 112, undefined],
    ['F5', 'F5', 'F5', 116, undefined],
    ['F12', 'F12', 'F12', 123, undefined],
  ];
  for (const [combo, key, code, keyCode, text] of cases) {
    const parsed = parseKeyCombo(combo, 'linux');
    assert.is(parsed.key.key, key, combo);
    assert.is(parsed.key.code, code, combo);
    assert.is(parsed.key.keyCode, keyCode, combo);
    assert.is(parsed.key.text, text, combo);
    assert.is(parsed.modifiers, 0, combo);
    assert.equal(parsed.modifierKeys, [], combo);
  }
});

s('key and modifier names are case-insensitive; single characters are not', () => {
  assert.is(parseKeyCombo('enter', 'linux').key.key, 'Enter');
  assert.is(parseKeyCombo('ARROWDOWN', 'linux').key.code, 'ArrowDown');
  assert.is(parseKeyCombo('pageup', 'linux').key.keyCode, 33);
  assert.is(parseKeyCombo('esc', 'linux').key.key, 'Escape');
  assert.is(parseKeyCombo('shift+tab', 'linux').modifiers, Shift);
  assert.is(parseKeyCombo('CONTROL+a', 'linux').modifiers, Control);
  assert.is(parseKeyCombo('a', 'linux').key.key, 'a');
  assert.is(parseKeyCombo('A', 'linux').key.key, 'A');
});

s('printable characters: letters, digits, punctuation', () => {
  const a = parseKeyCombo('a', 'linux');
  assert.equal(a.key, { key: 'a', code: 'KeyA', keyCode: 65, text: 'a' });
  assert.is(a.modifiers, 0);
  assert.equal(parseKeyCombo('1', 'linux').key, { key: '1', code: 'Digit1', keyCode: 49, text: '1' });
  assert.equal(parseKeyCombo('/', 'linux').key, { key: '/', code: 'Slash', keyCode: 191, text: '/' });
  assert.equal(parseKeyCombo('.', 'linux').key, { key: '.', code: 'Period', keyCode: 190, text: '.' });
  assert.equal(parseKeyCombo(',', 'linux').key, { key: ',', code: 'Comma', keyCode: 188, text: ',' });
  assert.equal(parseKeyCombo('-', 'linux').key, { key: '-', code: 'Minus', keyCode: 189, text: '-' });
  assert.equal(parseKeyCombo('=', 'linux').key, { key: '=', code: 'Equal', keyCode: 187, text: '=' });
});

s('a shifted character alone sets the Shift bit but presses no Shift key', () => {
  const upper = parseKeyCombo('A', 'linux');
  assert.equal(upper.key, { key: 'A', code: 'KeyA', keyCode: 65, text: 'A' });
  assert.is(upper.modifiers, Shift);
  assert.equal(upper.modifierKeys, []);
  const bang = parseKeyCombo('!', 'linux');
  assert.equal(bang.key, { key: '!', code: 'Digit1', keyCode: 49, text: '!' });
  assert.is(bang.modifiers, Shift);
  assert.equal(brief(keyEventsFor('A', 'linux')), ['keyDown A m8 text="A"', 'keyUp A m8']);
});

s('+ is written Plus, alone, or as the last character', () => {
  for (const combo of ['Plus', 'plus', '+']) {
    const parsed = parseKeyCombo(combo, 'linux');
    assert.equal(parsed.key, { key: '+', code: 'Equal', keyCode: 187, text: '+' }, combo);
    assert.is(parsed.modifiers, Shift, combo);
  }
  const ctrlPlus = parseKeyCombo('Control++', 'linux');
  assert.is(ctrlPlus.key.key, '+');
  assert.is(ctrlPlus.key.code, 'Equal');
  assert.is(ctrlPlus.key.text, undefined);
  assert.is(ctrlPlus.modifiers, Control | Shift);
  assert.equal(ctrlPlus.modifierKeys.map((k) => k.key), ['Control']);
  assert.equal(parseKeyCombo('Control+Plus', 'linux'), ctrlPlus);
});

s('Shift changes a printable key to its shifted character', () => {
  const shiftA = parseKeyCombo('Shift+a', 'linux');
  assert.equal(shiftA.key, { key: 'A', code: 'KeyA', keyCode: 65, text: 'A' });
  assert.is(shiftA.modifiers, Shift);
  assert.equal(shiftA.modifierKeys, [{ key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 }]);
  assert.equal(parseKeyCombo('Shift+1', 'linux').key, { key: '!', code: 'Digit1', keyCode: 49, text: '!' });
  assert.equal(parseKeyCombo('Shift+/', 'linux').key.key, '?');
  // Shift+Enter still inserts (a line break); Shift+Tab inserts nothing.
  assert.is(parseKeyCombo('Shift+Enter', 'linux').key.text, '\r');
  assert.is(parseKeyCombo('Shift+Tab', 'linux').key.text, undefined);
});

s('with Control, Alt or Meta a letter is the plain key and nothing is typed', () => {
  for (const combo of ['Control+A', 'Control+a', 'control+a']) {
    const parsed = parseKeyCombo(combo, 'linux');
    assert.equal(parsed.key, { key: 'a', code: 'KeyA', keyCode: 65 }, combo);
    assert.is(parsed.modifiers, Control, combo);
  }
  assert.equal(parseKeyCombo('Alt+ArrowDown', 'linux').key, { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 });
  assert.is(parseKeyCombo('Alt+ArrowDown', 'linux').modifiers, Alt);
  assert.is(parseKeyCombo('Meta+Enter', 'linux').key.text, undefined);
  assert.is(parseKeyCombo('Control+Space', 'linux').key.text, undefined);
  const ctrlShiftA = parseKeyCombo('Control+Shift+A', 'linux');
  assert.is(ctrlShiftA.key.key, 'A');
  assert.is(ctrlShiftA.key.text, undefined);
  assert.is(ctrlShiftA.modifiers, Control | Shift);
});

s('ControlOrMeta is Control on Linux, Meta on macOS', () => {
  assert.is(parseKeyCombo('ControlOrMeta+a', 'linux').modifiers, Control);
  assert.is(parseKeyCombo('ControlOrMeta+a', 'linux').modifierKeys[0]!.key, 'Control');
  assert.is(parseKeyCombo('ControlOrMeta+a', 'mac').modifiers, Meta);
  assert.is(parseKeyCombo('ControlOrMeta+a', 'mac').modifierKeys[0]!.key, 'Meta');
  assert.is(parseKeyCombo('ControlOrMeta+a', 'windows').modifiers, Control);
});

s('modifiers accumulate in the order written, without duplicates', () => {
  const parsed = parseKeyCombo('Shift+Alt+Control+Meta+x', 'linux');
  assert.is(parsed.modifiers, Alt | Control | Meta | Shift);
  assert.equal(parsed.modifierKeys.map((k) => k.code), ['ShiftLeft', 'AltLeft', 'ControlLeft', 'MetaLeft']);
  const dup = parseKeyCombo('Control+ControlOrMeta+a', 'linux');
  assert.equal(dup.modifierKeys.map((k) => k.key), ['Control']);
  assert.equal(parseKeyCombo('Control + A', 'linux').key.code, 'KeyA');
});

s('a modifier can be the key itself', () => {
  const shift = parseKeyCombo('Shift', 'linux');
  assert.equal(shift.key, { key: 'Shift', code: 'ShiftLeft', keyCode: 16, location: 1 });
  assert.is(shift.modifiers, Shift);
  assert.equal(brief(keyEventsFor('Shift', 'linux')), ['rawKeyDown Shift m8', 'keyUp Shift']);
  assert.equal(brief(keyEventsFor('Control+Shift', 'linux')), [
    'rawKeyDown Control m2',
    'rawKeyDown Shift m10',
    'keyUp Shift m2',
    'keyUp Control',
  ]);
});

s('characters off the US layout are pressable keys with key code 0', () => {
  assert.equal(parseKeyCombo('é', 'linux').key, { key: 'é', code: '', keyCode: 0, text: 'é' });
  assert.equal(parseKeyCombo('😀', 'linux').key, { key: '😀', code: '', keyCode: 0, text: '😀' });
  assert.equal(parseKeyCombo('Control+é', 'linux').key, { key: 'é', code: '', keyCode: 0 });
  assert.equal(parseKeyCombo('e\u0301', 'linux').key, { key: 'e\u0301', code: '', keyCode: 0, text: 'e\u0301' });
  assert.equal(parseKeyCombo('👍🏽', 'linux').key.text, '👍🏽');
});

s('unknown keys and malformed combos throw KeyError with examples', () => {
  throwsKeyError(() => parseKeyCombo('Foo', 'linux'), 'Enter');
  throwsKeyError(() => parseKeyCombo('Control+Foo', 'linux'), 'Foo');
  throwsKeyError(() => parseKeyCombo('Ctl+a', 'linux'), 'not a modifier');
  throwsKeyError(() => parseKeyCombo('a+b', 'linux'), 'not a modifier');
  throwsKeyError(() => parseKeyCombo('', 'linux'));
  throwsKeyError(() => parseKeyCombo('Control+', 'linux'), 'Missing key');
  throwsKeyError(() => parseKeyCombo('+a', 'linux'));
  throwsKeyError(() => parseKeyCombo('++', 'linux'));
  throwsKeyError(() => parseKeyCombo('Shift+\u0007', 'linux'));
  throwsKeyError(() => parseKeyCombo('Fn', 'linux'), 'ControlOrMeta');
});

s('keyEventsFor: Enter is one keyDown with text "\\r" and a keyUp', () => {
  const events = keyEventsFor('Enter', 'linux');
  assert.equal(events, [
    {
      type: 'keyDown',
      modifiers: 0,
      key: 'Enter',
      code: 'Enter',
      windowsVirtualKeyCode: 13,
      nativeVirtualKeyCode: 13,
      text: '\r',
      unmodifiedText: '\r',
    },
    { type: 'keyUp', modifiers: 0, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13 },
  ]);
});

s('keyEventsFor: keys without text go down as rawKeyDown', () => {
  assert.equal(brief(keyEventsFor('Tab', 'linux')), ['rawKeyDown Tab', 'keyUp Tab']);
  assert.equal(brief(keyEventsFor('ArrowDown', 'linux')), ['rawKeyDown ArrowDown', 'keyUp ArrowDown']);
  assert.equal(brief(keyEventsFor('Backspace', 'linux')), ['rawKeyDown Backspace', 'keyUp Backspace']);
  assert.equal(brief(keyEventsFor('a', 'linux')), ['keyDown a text="a"', 'keyUp a']);
  assert.equal(brief(keyEventsFor(' ', 'linux')), ['keyDown   text=" "', 'keyUp  ']);
});

s('keyEventsFor: modifiers down in order, key, modifiers up in reverse, masks as held', () => {
  assert.equal(brief(keyEventsFor('Shift+Tab', 'linux')), ['rawKeyDown Shift m8', 'rawKeyDown Tab m8', 'keyUp Tab m8', 'keyUp Shift']);
  assert.equal(brief(keyEventsFor('Control+Shift+Z', 'linux')), [
    'rawKeyDown Control m2',
    'rawKeyDown Shift m10',
    'rawKeyDown Z m10',
    'keyUp Z m10',
    'keyUp Shift m2',
    'keyUp Control',
  ]);
  assert.equal(brief(keyEventsFor('Shift+a', 'linux')), ['rawKeyDown Shift m8', 'keyDown A m8 text="A"', 'keyUp A m8', 'keyUp Shift']);
  const events = keyEventsFor('Alt+ArrowDown', 'linux');
  assert.equal(events[0], {
    type: 'rawKeyDown',
    modifiers: Alt,
    key: 'Alt',
    code: 'AltLeft',
    windowsVirtualKeyCode: 18,
    nativeVirtualKeyCode: 18,
    location: 1,
  });
  assert.is(events[1]!.windowsVirtualKeyCode, 40);
  assert.is(events[1]!.nativeVirtualKeyCode, 40);
});

s('keyEventsFor: editing commands ride on the key down of the usual shortcuts', () => {
  const commandsOf = (combo: string, platform: BrowserPlatform = 'linux') =>
    keyEventsFor(combo, platform).find((e) => e.commands)?.commands;
  assert.equal(commandsOf('Control+A'), ['selectAll']);
  assert.equal(commandsOf('Control+a'), ['selectAll']);
  assert.equal(commandsOf('ControlOrMeta+a'), ['selectAll']);
  assert.equal(commandsOf('Control+C'), ['copy']);
  assert.equal(commandsOf('Control+X'), ['cut']);
  assert.equal(commandsOf('Control+V'), ['paste']);
  assert.equal(commandsOf('Control+Z'), ['undo']);
  assert.equal(commandsOf('Control+Shift+Z'), ['redo']);
  assert.equal(commandsOf('Control+Y'), ['redo']);
  assert.equal(commandsOf('Meta+A', 'mac'), ['selectAll']);
  assert.equal(commandsOf('ControlOrMeta+Z', 'mac'), ['undo']);
  // Not shortcuts for these commands.
  assert.is(commandsOf('Control+Alt+A'), undefined);
  assert.is(commandsOf('Meta+A'), undefined);
  assert.is(commandsOf('Control+A', 'mac'), undefined);
  assert.is(commandsOf('Control+B'), undefined);
  assert.is(commandsOf('a'), undefined);
  const selectAll = keyEventsFor('Control+A', 'linux');
  assert.equal(brief(selectAll), ['rawKeyDown Control m2', 'rawKeyDown a m2', 'keyUp a m2', 'keyUp Control']);
  assert.is(selectAll[1]!.windowsVirtualKeyCode, 65);
  assert.is(selectAll[2]!.commands, undefined);
});

s('charKeyEvents: US-layout characters, Shift implied for capitals and shifted symbols', () => {
  assert.equal(charKeyEvents('a'), [
    {
      type: 'keyDown',
      modifiers: 0,
      key: 'a',
      code: 'KeyA',
      windowsVirtualKeyCode: 65,
      nativeVirtualKeyCode: 65,
      text: 'a',
      unmodifiedText: 'a',
    },
    { type: 'keyUp', modifiers: 0, key: 'a', code: 'KeyA', windowsVirtualKeyCode: 65, nativeVirtualKeyCode: 65 },
  ]);
  assert.equal(charKeyEvents('Q'), [
    {
      type: 'keyDown',
      modifiers: Shift,
      key: 'Q',
      code: 'KeyQ',
      windowsVirtualKeyCode: 81,
      nativeVirtualKeyCode: 81,
      text: 'Q',
      unmodifiedText: 'Q',
    },
    { type: 'keyUp', modifiers: Shift, key: 'Q', code: 'KeyQ', windowsVirtualKeyCode: 81, nativeVirtualKeyCode: 81 },
  ]);
  const bang = charKeyEvents('!');
  assert.is(bang[0]!.code, 'Digit1');
  assert.is(bang[0]!.windowsVirtualKeyCode, 49);
  assert.is(bang[0]!.modifiers, Shift);
  assert.is(charKeyEvents('"')[0]!.code, 'Quote');
  assert.is(charKeyEvents('?')[0]!.code, 'Slash');
  assert.is(charKeyEvents('7')[0]!.modifiers, 0);
  assert.equal(brief(charKeyEvents(' ')), ['keyDown   text=" "', 'keyUp  ']);
});

s('charKeyEvents: newline types Enter, tab presses Tab', () => {
  for (const newline of ['\n', '\r', '\r\n']) {
    const events = charKeyEvents(newline);
    assert.equal(brief(events), ['keyDown Enter text="\\r"', 'keyUp Enter'], JSON.stringify(newline));
    assert.is(events[0]!.windowsVirtualKeyCode, 13);
  }
  assert.equal(brief(charKeyEvents('\t')), ['rawKeyDown Tab', 'keyUp Tab']);
});

s('charKeyEvents: anything else is a keyDown carrying the text, key code 0', () => {
  for (const char of ['é', 'ß', '漢', '😀', '👍🏽', '👨‍👩‍👧']) {
    assert.equal(charKeyEvents(char), [
      {
        type: 'keyDown',
        modifiers: 0,
        key: char,
        code: '',
        windowsVirtualKeyCode: 0,
        nativeVirtualKeyCode: 0,
        text: char,
        unmodifiedText: char,
      },
      { type: 'keyUp', modifiers: 0, key: char, code: '', windowsVirtualKeyCode: 0, nativeVirtualKeyCode: 0 },
    ], char);
  }
});

s('charKeyEvents: exactly one character', () => {
  throwsKeyError(() => charKeyEvents(''));
  throwsKeyError(() => charKeyEvents('ab'), 'exactly one character');
});

s('events fit both the generated CDP params and a plain record', () => {
  // Compile-time checks: these assignments must type-check (tsc and deno check).
  const [event] = keyEventsFor('Control+A', 'linux');
  const typed: Cdp.Input.DispatchKeyEventParams = event!;
  const plain: Record<string, unknown> = event!;
  assert.is(typed.type, 'rawKeyDown');
  assert.is(plain['key'], 'Control');
  assert.is(JSON.stringify(keyEventsFor('Enter', 'linux')).includes('"text":"\\r"'), true);
});

s.run();
