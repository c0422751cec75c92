// The README and docs/ as a clone reads them: the README's generated tables are what the code says
// (scripts/readme-tables.ts, `npm run docs` rewrites them), the bench summary still has the markers
// `npm run bench` writes between, and every link points at a file (and heading) inside the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { README_END, README_START } from '../../bench/peers/report.ts';
import { generatedBlocks, README, staleBlocks, withBlocks } from '../../scripts/readme-tables.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
  'bench/README.md',
  'bench/RESULTS.md',
];

const s = suite('readme and docs');

s('the README tables are what the code says (run `npm run docs` after changing a method, an error or a flag)', async () => {
  const text = readFileSync(README, 'utf8');
  const blocks = await generatedBlocks();
  assert.equal(staleBlocks(text, blocks), []);
  // The check can fail: a table that lost a row is stale.
  const edited = withBlocks(text, { methods: blocks['methods']!.split('\n').slice(0, -1).join('\n') });
  assert.equal(staleBlocks(edited, blocks), ['methods']);
});

s('the method table lists every method, cdp.send included', async () => {
  const { methods } = await generatedBlocks();
  for (const name of ['session.create', 'observe', 'act', 'events.subscribe', 'rpc.discover', 'cdp.send']) {
    assert.match(methods!, `| \`${name}\` |`);
  }
});

s('bench/README.md keeps the markers npm run bench writes its summary between', () => {
  const text = readFileSync(join(ROOT, 'bench/README.md'), 'utf8');
  const start = text.indexOf(README_START);
  assert.ok(start !== -1 && text.indexOf(README_END) > start, 'bench summary markers');
  assert.is(text.split(README_START).length, 2, 'one start marker');
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

function anchorsOf(text: string): Set<string> {
  const found = new Set<string>();
  for (const match of withoutCode(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchor(match[1]!.trim());
    let name = base;
    for (let n = 1; found.has(name); n++) name = `${base}-${n}`;
    found.add(name);
  }
  return found;
}

/** Fenced blocks and inline code hold no links. */
function withoutCode(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

s('every link in README.md, docs/ and bench/ stays inside the repository and resolves', () => {
  const problems: string[] = [];
  for (const doc of DOCS) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const match of withoutCode(text).matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = match[1]!;
      if (/^https?:\/\//.test(link)) continue;
      const [path, hash] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(ROOT, doc) : resolve(dirname(join(ROOT, doc)), path);
      const inside = relative(ROOT, target);
      if (inside.startsWith('..') || /^[a-z]+:/.test(link)) problems.push(`${doc}: ${link} leaves the repository`);
      else if (!existsSync(target)) problems.push(`${doc}: ${link} does not exist`);
      else if (hash !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(hash)) {
        problems.push(`${doc}: ${link} names no heading of ${inside}`);
      }
    }
  }
  assert.equal(problems, []);
});

s.run();
