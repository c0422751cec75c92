// The marks of the page's Markdown replaced by refs, names and redacted URLs (observe/markdown.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fillMarks } from '../../src/observe/markdown.ts';
import type { ElementView, RefTarget } from '../../src/observe/render.ts';

const s = suite('observe markdown marks');

const target = (ref: string, role: string, name: string): RefTarget => ({ ref, role, name, frameId: 'F', backendNodeId: 1 });
const view = (ref: string, role: string, name: string, more: Partial<ElementView> = {}): ElementView => ({
  ref,
  role,
  name,
  frame_id: 'F',
  visible: true,
  in_viewport: true,
  ...more,
});

s('refs by name and role, states said, a region by its ref alone', () => {
  const targets = [target('@4', 'link', 'Docs [beta]'), target('@7', 'checkbox', 'Remember me'), target('@9', 'generic', 'Card')];
  const elements = new Map([['@7', view('@7', 'checkbox', 'Remember me', { checked: true, disabled: true })]]);
  const text = fillMarks(
    { text: 'Read \u00010\u0001. \u00011\u0001\n\n\u00022\u0002 ## Card', urls: [] },
    targets,
    elements,
    'https://app.example/home',
  );
  assert.is(text, 'Read [Docs \\[beta\\]](@4). [checkbox: Remember me (checked, disabled)](@7)\n\n(@9) ## Card');
});

s('URLs redacted: a path alone on the same origin, the document itself by its text alone', () => {
  const text = fillMarks(
    {
      text: '[next](\u00030\u0003) [elsewhere](\u00031\u0003) [here](\u00032\u0003) [root](\u00033\u0003)',
      urls: [
        'https://app.example/docs/next?token=abc',
        'https://user:pw@other.example/a?q=1#x',
        'https://app.example/docs/page#section',
        'https://app.example',
      ],
    },
    [],
    new Map(),
    'https://app.example/docs/page?session=1',
  );
  assert.is(text, '[next](/docs/next) [elsewhere](https://other.example/a) here [root](/)');
});

s('a mark whose ref was not passed is dropped, and page text cannot forge one', () => {
  assert.is(fillMarks({ text: 'a \u00015\u0001 b', urls: [] }, [], new Map(), 'https://x.example/'), 'a  b');
});

s.run();
