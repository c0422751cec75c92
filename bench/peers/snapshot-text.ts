// Reading the text each tool hands the model: find the ref of an element by role and name, and
// count the interactive elements a text lets the model act on. The same role list is applied to
// every tool's text (pagewire's tree included), so "per interactive element" means the same
// thing for all of them.

export interface TextNode {
  role: string;
  name: string;
  ref: string | undefined;
}

/** Roles a model acts on. Options inside a select are part of their combobox and not counted. */
export const INTERACTIVE_ROLES = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
]);

export type TextFormat = 'pagewire' | 'playwright' | 'chrome-devtools' | 'agent-browser';

const unquote = (quoted: string) => quoted.replace(/\\(.)/g, '$1');

// One regex per format; each captures role, name (may be absent) and ref (may be absent).
//   Playwright MCP:   `- button "Edit row 1" [ref=e12]`, `- checkbox "Text me" [checked] [ref=e28]`
//   chrome-devtools:  `uid=1_45 button "Sign up"`
//   agent-browser:    `- button "Sign up" [ref=e19]`, `- heading "X" [level=1, ref=e1]`
const LINE: Record<Exclude<TextFormat, 'pagewire'>, RegExp> = {
  playwright: /^\s*- ([A-Za-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?(?:.*?\[ref=([^\]\s]+)\])?/,
  'chrome-devtools': /^\s*uid=(\S+) ([A-Za-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?/,
  'agent-browser': /^\s*- ([A-Za-z][\w-]*)(?: "((?:[^"\\]|\\.)*)")?(?:.*?\bref=([^,\]\s]+))?/,
};

/**
 * A pagewire line: a role, then its nodes, each a JSON-quoted name (absent on a nameless node)
 * with perhaps `[state words]` and an `@N` ref; siblings of one role share a line
 * (`button "Back" @4 "Next" @5`). Quoted strings inside the brackets (a select's options) are
 * state words, not nodes.
 */
function parsePagewireLine(line: string): TextNode[] {
  const head = /^\s*([A-Za-z][\w-]*)/.exec(line);
  if (!head) return []; // a text line (only a quoted string) or nothing
  const role = head[1]!;
  const nodes: TextNode[] = [];
  const token = /\s*(?:("(?:[^"\\]|\\.)*")|(\[(?:[^\]"]|"(?:[^"\\]|\\.)*")*\])|(@\d+))/y;
  token.lastIndex = head[0].length;
  let current: TextNode | undefined;
  for (let match = token.exec(line); match; match = token.exec(line)) {
    if (match[1] !== undefined) nodes.push(current = { role, name: JSON.parse(match[1]) as string, ref: undefined });
    else if (match[3] !== undefined) {
      if (!current) nodes.push(current = { role, name: '', ref: undefined });
      current.ref = match[3];
    }
  }
  return nodes.length > 0 ? nodes : [{ role, name: '', ref: undefined }];
}

export function parseNodes(text: string, format: TextFormat): TextNode[] {
  if (format === 'pagewire') return text.split('\n').flatMap(parsePagewireLine);
  const nodes: TextNode[] = [];
  const regex = LINE[format];
  for (const line of text.split('\n')) {
    const match = regex.exec(line);
    if (!match) continue;
    if (format === 'chrome-devtools') {
      nodes.push({ role: match[2]!, name: unquote(match[3] ?? ''), ref: match[1] });
    } else {
      nodes.push({ role: match[1]!, name: unquote(match[2] ?? ''), ref: match[3] });
    }
  }
  return nodes;
}

export function countInteractive(text: string, format: TextFormat): number {
  return parseNodes(text, format).filter((node) => INTERACTIVE_ROLES.has(node.role)).length;
}

/** The ref of the first element with that role and exact name, or undefined. */
export function findRef(text: string, format: TextFormat, role: string, name: string): string | undefined {
  return parseNodes(text, format).find((node) => node.role === role && node.name === name && node.ref)?.ref;
}
