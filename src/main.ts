#!/usr/bin/env node
// The process: parse flags and environment, start the server (`pagewire serve`, the default) or
// MCP over stdio (`pagewire mcp`), print the ready line, and on SIGINT/SIGTERM (or a crash of our
// own, or for `mcp` the client closing stdin) close every browser we launched before exiting.
import process from 'node:process';
import { ConfigError, helpText, parseConfig } from './config.ts';
import { startMcpStdio, startServer } from './server.ts';
import { createLogger } from './util/log.ts';

function runtimeName(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return deno ? `deno ${deno.version.deno}` : `node ${process.version}`;
}

const COMMANDS = ['serve', 'mcp'] as const;
type Command = (typeof COMMANDS)[number];

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const command: Command = (COMMANDS as readonly string[]).includes(args[0] ?? '') ? (args.shift() as Command) : 'serve';
  let config;
  try {
    config = parseConfig(args, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`pagewire: ${error.message}\n\n${helpText()}`);
      process.exit(2);
    }
    throw error;
  }
  if (config.help) {
    // Under `mcp`, stdout is the protocol channel even for help.
    (command === 'mcp' ? console.error : console.log)(helpText());
    return;
  }
  const log = createLogger({ level: config.logLevel, redact: config.tokens });
  let server: { close(): Promise<void> } | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    try {
      await server?.close();
    } finally {
      process.exit(code);
    }
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception', { error: String(error?.stack ?? error) });
    void stop(1);
  });
  process.on('unhandledRejection', (error) => {
    log.error('unhandled rejection', { error: String((error as Error)?.stack ?? error) });
    void stop(1);
  });
  if (command === 'mcp') {
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

await main();
