// `pagewire serve` (the default command) and `pagewire mcp`: parse flags and environment, start the
// server (printing the ready line) or MCP over stdio, and on SIGINT/SIGTERM (or a crash of our
// own, or for `mcp` the client closing stdin) close every browser we launched before exiting.
// SIGTERM (how a balancer's orchestrator asks an instance to go) drains first: no new sessions,
// the calls under way finish, then the same close; a second signal closes at once.
// `pagewire trace show FILE`: the inspector alone, on one saved trace, with no browser at all.
import process from 'node:process';
import { ConfigError, helpText, parseConfig } from './config.ts';
import { readTextFile } from './runtime/text-files.ts';
import { serveTraceFile, startMcpStdio, startServer } from './server.ts';
import { createLogger } from './util/log.ts';
import type { CommandContext } from './cli/dispatch.ts';

export type Mode = 'serve' | 'mcp';

function runtimeName(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return deno ? `deno ${deno.version.deno}` : `node ${process.version}`;
}

export async function run(argv: string[], context?: CommandContext, mode: Mode = 'serve'): Promise<void> {
  // Under `mcp`, stdout is the protocol channel: every word for a person goes to stderr.
  const say = mode === 'mcp' ? console.error : console.log;
  let config;
  try {
    config = parseConfig(argv, process.env, { readFile: readTextFile });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`pagewire: ${error.message}\n\n${helpText()}`);
      process.exit(2);
    }
    throw error;
  }
  if (config.help) {
    say(context ? `${helpText()}\n\n${context.commandsHelp}` : helpText());
    return;
  }
  const log = createLogger({ level: config.logLevel, redact: config.tokens });
  let server: { close(): Promise<void>; drain?(): Promise<void> } | undefined;
  let stopping = false;
  let draining = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    try {
      await server?.close();
    } finally {
      process.exit(code);
    }
  };
  // A reader of our stdout or stderr that went away (the process that started us died) makes every
  // later write fail. On Node each failure is an 'error' event, which unhandled is an uncaught
  // exception, which is logged, which fails again: a loop that starves the event loop, so that
  // not even SIGTERM is handled and the browser stays. What nobody reads is dropped; under `mcp`,
  // stdout is the host's channel, so its loss ends the server as stdin's does.
  process.stderr.on('error', () => {});
  process.stdout.on('error', () => void (mode === 'mcp' ? stop(0) : undefined));
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => {
    if (draining || !server?.drain) return void stop(0);
    draining = true;
    log.info('SIGTERM: draining (no new sessions; running calls finish)');
    void server.drain().finally(() => stop(0));
  });
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception', { error: String(error?.stack ?? error) });
    void stop(1);
  });
  process.on('unhandledRejection', (error) => {
    log.error('unhandled rejection', { error: String((error as Error)?.stack ?? error) });
    void stop(1);
  });
  if (mode === 'mcp') {
    const mcp = startMcpStdio(config, { log, runtime: runtimeName() });
    server = mcp;
    // The client closed its end: nothing more will come, so stop (and close the browser).
    void mcp.ended.then(() => stop(0));
    log.info('pagewire mcp: serving MCP on stdio');
    return;
  }
  try {
    const running = await startServer(config, { log, runtime: runtimeName() });
    server = running;
    console.log(running.readyLine);
  } catch (error) {
    console.error(`pagewire: could not start: ${(error as Error).message}`);
    process.exit(1);
  }
}

/**
 * `pagewire trace show FILE [--port N]`: one saved trace served to a local browser (PROTOCOL.md
 * §16) with no session and no browser of ours: a loopback listener with a fresh token that answers
 * the inspector page, its scripts and that one file, and nothing else (its socket serves no calls).
 * Prints the page's URL, then runs until SIGINT/SIGTERM.
 */
export async function showTrace(argv: string[]): Promise<number | void> {
  const usage = 'usage: pagewire trace show FILE [--port N]';
  const { file, port } = traceShowArgs(argv);
  if (file === undefined) {
    console.error(`pagewire trace show: ${port === undefined ? 'a trace FILE is needed' : 'bad arguments'}\n${usage}`);
    return 2;
  }
  let viewer;
  try {
    viewer = await serveTraceFile(file, { port: port ?? 0 });
  } catch (error) {
    console.error(`pagewire trace show: ${(error as Error).message}`);
    return 1;
  }
  const running = viewer;
  const stop = () => void running.close().finally(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  console.log(`pagewire trace viewer on ${running.url}`);
}

/** FILE and an optional --port (0–65535); `file` undefined when they are not that. */
function traceShowArgs(argv: readonly string[]): { file?: string; port?: number } {
  const rest = [...argv];
  let port: number | undefined;
  const at = rest.findIndex((arg) => arg === '--port' || arg.startsWith('--port='));
  if (at !== -1) {
    const value = rest[at]!.includes('=') ? rest[at]!.slice('--port='.length) : rest[at + 1];
    rest.splice(at, rest[at]!.includes('=') ? 1 : 2);
    port = Number(value);
    if (value === undefined || !/^\d+$/.test(value) || port > 65_535) return { port: -1 };
  }
  if (rest.length !== 1 || rest[0]!.startsWith('-')) return port === undefined ? {} : { port };
  return { file: rest[0]!, ...(port !== undefined ? { port } : {}) };
}
