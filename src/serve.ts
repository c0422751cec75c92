// `pagewire serve` (the default command): parse flags and environment, start the server, print the
// ready line, and on SIGINT/SIGTERM (or a crash of our own) close every browser we launched
// before exiting.
import process from 'node:process';
import { ConfigError, helpText, parseConfig } from './config.ts';
import { startServer, type RunningServer } from './server.ts';
import { createLogger } from './util/log.ts';
import type { CommandContext } from './cli/dispatch.ts';

function runtimeName(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return deno ? `deno ${deno.version.deno}` : `node ${process.version}`;
}

export async function run(argv: string[], context?: CommandContext): Promise<void> {
  let config;
  try {
    config = parseConfig(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`pagewire: ${error.message}\n\n${helpText()}`);
      process.exit(2);
    }
    throw error;
  }
  if (config.help) {
    console.log(context ? `${helpText()}\n\n${context.commandsHelp}` : helpText());
    return;
  }
  const log = createLogger({ level: config.logLevel, redact: config.tokens });
  let server: RunningServer | undefined;
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
  try {
    server = await startServer(config, { log, runtime: runtimeName() });
  } catch (error) {
    console.error(`pagewire: could not start: ${(error as Error).message}`);
    process.exit(1);
  }
  console.log(server.readyLine);
}
