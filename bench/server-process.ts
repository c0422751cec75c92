// What the benchmarks that time a real server process share (bench:mcp, bench:python): the
// process itself (`node dist/src/main.js`, a token of its own, the URL read from its ready line),
// and the page they observe.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Buffer } from 'node:buffer';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A page with a form of twenty labelled fields: a typical observation, a few KB. */
export const FORM_PAGE = `data:text/html,${
  encodeURIComponent(`<form>${
    Array.from({ length: 20 }, (_, i) => `<p><label>Field ${i} <input name="f${i}"></label>`).join('')
  }<button>Send</button></form>`)
}`;

/** Starts the built server on any free port; `url` is its ready line's (`ws://…/?token=…`). */
export async function startServerProcess(): Promise<{ child: ChildProcess; url: string }> {
  const token = `bench-${crypto.randomUUID()}`;
  const child = spawn(process.execPath, [`${ROOT}dist/src/main.js`, '--port', '0', '--token', token], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk).trim())));
  return { child, url: line.replace('pagewire listening on ', '') };
}
