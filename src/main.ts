#!/usr/bin/env node
// The `pagewire` executable: the command table and nothing heavy, so that a client command
// starts without loading the server. `serve` (the default) is the server of docs/PROTOCOL.md §1.
import process from 'node:process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dispatch, EXIT_USAGE, type CommandModule, type CommandTable } from './cli/dispatch.ts';
import { clientCommands } from './cli/table.ts';

/** The MCP server, when this build has it (src/mcp/cli.ts exporting run(argv)). */
async function mcpModule(): Promise<CommandModule> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const url = new URL(`./mcp/cli${ext}`, import.meta.url);
  if (existsSync(fileURLToPath(url))) return (await import(url.href)) as CommandModule;
  return {
    run: async () => {
      console.error('pagewire: the mcp command is not available in this build (it has no MCP server module)');
      return EXIT_USAGE;
    },
  };
}

const table: CommandTable = {
  serve: { usage: 'serve [flags]', summary: 'start the server (the default; flags: pagewire --help)', load: () => import('./serve.ts') },
  mcp: { usage: 'mcp [flags]', summary: 'the MCP server over stdio', load: mcpModule },
  ...clientCommands(() => import('./cli/commands.ts')),
};

const code = await dispatch(process.argv.slice(2), table);
// A command that returns its code is done: exit now rather than wait for sockets to finish closing.
if (typeof code === 'number') process.exit(code);
