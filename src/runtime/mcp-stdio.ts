// `pagewire mcp`: MCP over this process's stdin and stdout through the official SDK's stdio
// entry (one connection, one server instance, either protocol era). stdout carries MCP only:
// logs go to stderr. The connection ends when the client closes stdin.
import process from 'node:process';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { type Logger, silentLogger } from '../util/log.ts';

export interface McpStdioOptions {
  factory: McpServerFactory;
  log?: Logger;
}

export interface McpStdio {
  /** Resolves once stdin has ended or closed. */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

export function serveMcpStdio(options: McpStdioOptions): McpStdio {
  const log = options.log ?? silentLogger;
  const ended = new Promise<void>((resolve) => {
    process.stdin.once('end', () => resolve());
    process.stdin.once('close', () => resolve());
  });
  // The SDK's transport pauses stdin when it closes on an error of its own (an over-long message)
  // if no one else reads it, and a paused stdin never tells of its end: the host's going away would
  // then go unseen and the browser stay. A reader of our own keeps it flowing.
  process.stdin.on('data', () => {});
  const handle = serveStdio(options.factory, { onerror: (error) => log.debug('mcp stdio error', { error: error.message }) });
  return {
    ended,
    close: () => handle.close(),
  };
}
