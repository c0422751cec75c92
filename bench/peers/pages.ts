// The fixture pages (fixtures/pages, served by test/helpers/fixture-server.ts) and, on each,
// the element every contender clicks and the field it fills, found by role and accessible name
// in each tool's own snapshot (and by a DOM expression for the raw CDP floor).
import type { PageSpec } from './contender.ts';

export const PAGES: PageSpec[] = [
  {
    id: 'large-table',
    path: '/large-table.html',
    description: '1,500 controls: 300 rows × (button, link, text field, checkbox, select)',
    click: { role: 'button', name: 'Edit row 1', js: "document.querySelector('#row1 button')" },
    fill: { role: 'textbox', name: 'Note for row 1', js: "document.querySelector('#row1 input[type=text]')" },
    select: { role: 'combobox', name: 'Status for row 1', js: "document.querySelector('#row1 select')", labels: ['Overdue', 'Pending'] },
    series: ['observe_unchanged', 'observe_changed', 'observe_500', 'click', 'click_observed', 'fill', 'type', 'select', 'navigate'],
  },
  {
    id: 'long-index',
    path: '/long-index.html',
    description: 'a generated documentation index: 5,000 entries, 11,000+ links with code-styled names, 2.2 MB (fixtures/long-index.ts)',
    click: { role: 'button', name: 'Dark mode', js: "document.querySelector('.theme-toggle')" },
    fill: { role: 'searchbox', name: 'Search the docs', js: "document.querySelector('input[name=q]')" },
    // A full accessibility read of it takes Chromium tens of seconds: only the first-look series.
    series: ['observe_500', 'fill', 'type', 'navigate'],
    floorRead: 'prefix',
  },
  {
    id: 'form',
    path: '/form.html',
    description: 'a 20-field sign-up form',
    click: { role: 'checkbox', name: 'Text me', js: "document.getElementById('notify-sms')" },
    fill: { role: 'textbox', name: 'Full name', js: "document.getElementById('full-name')" },
    select: { role: 'combobox', name: 'Country', js: "document.getElementById('country')", labels: ['Japan', 'France'] },
  },
  {
    id: 'shadow-iframe',
    path: '/shadow-iframe.html',
    description: 'nested open shadow roots, a closed root, a slot, a same-origin and a cross-site iframe',
    click: {
      role: 'button',
      name: 'Deep button',
      js: "document.getElementById('outer').shadowRoot.querySelector('inner-box').shadowRoot.getElementById('deep')",
    },
    fill: {
      role: 'textbox',
      name: 'Deep input',
      js: "document.getElementById('outer').shadowRoot.querySelector('inner-box').shadowRoot.getElementById('deep-input')",
    },
  },
  {
    id: 'article',
    path: '/article.html',
    description: 'a 30 KB article with 200 links (no form field)',
    // An in-page link (#sec-4): the click is a same-document navigation, so the page stays.
    click: { role: 'link', name: 'still seems modest', js: 'document.querySelector(\'a[href="#sec-4"]\')' },
    fill: undefined,
  },
  // Python's own documentation as Debian's python3-doc installs it (real Sphinx pages: highlighted code,
  // long tables of contents), served from /python-docs/; only the navigation is timed on them.
  ...[
    ['python-asyncio-task', 'asyncio-task', "Python's library/asyncio-task.html: 3,400+ elements, every code token a span"],
    ['python-functions', 'functions', "Python's library/functions.html: the built-in functions, a long reference page"],
    ['python-stdtypes', 'stdtypes', "Python's library/stdtypes.html: the built-in types, the longest library page"],
  ].map(([id, name, description]): PageSpec => ({
    id: id!,
    path: `/python-docs/library/${name}.html`,
    description: description!,
    pythonDocs: true,
    click: { role: 'link', name: 'Python Module Index', js: 'document.querySelector(\'a[href$="py-modindex.html"]\')' },
    fill: { role: 'textbox', name: 'Quick search', js: "document.querySelector('input[name=q]')" },
    series: ['navigate'],
  })),
];
