// Building the inspector's DOM: one element with its attributes, listeners and children.
import type { FrameNote } from '../wire/frame-notes.ts';
import type { Row } from './rows.ts';

export type Attrs = Record<string, string | ((event: Event) => void)>;

export function h(tag: string, attrs: Attrs = {}, ...children: Array<Node | string | undefined>): HTMLElement {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (typeof value === 'function') element.addEventListener(key, value);
    else element.setAttribute(key, value);
  }
  for (const child of children) if (child !== undefined) element.append(child);
  return element;
}

/** One readable row (rows.ts) as an element: its words, its tone as a class and `data-tone`. */
export function rowElement(tag: string, row: Row, attrs: Attrs = {}, ...extra: Array<Node | string | undefined>): HTMLElement {
  const cls = typeof attrs['class'] === 'string' ? `${attrs['class']} ` : '';
  return h(tag, { ...attrs, class: `${cls}row ${row.tone}`, 'data-tone': row.tone }, h('span', { class: 'words' }, row.text), ...extra);
}

/** A frame note (wire/frame-notes.ts) as a paragraph above an observation's tree, its status as `data-frame-note`. */
export function frameNoteElement(note: FrameNote): HTMLElement {
  return h('p', { class: 'frame-note', 'data-frame-note': note.status }, note.text);
}
