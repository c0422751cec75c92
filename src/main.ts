#!/usr/bin/env node
// The `pagewire` executable: the command table and nothing heavy, so that a client command
// starts without loading the server. `serve` (the default) is the server of docs/PROTOCOL.md §1;
// `mcp` is the same server's method table spoken as MCP over stdio.
import process from 'node:process';
import { type CommandTable, dispatch } from './cli/dispatch.ts';
import { clientCommands } from './cli/table.ts';

const table: CommandTable = {
  serve: { usage: 'serve [flags]', summary: 'start the server (the default; flags: pagewire --help)', load: () => import('./serve.ts') },
  mcp: {
    usage: 'mcp [flags]',
    summary: 'the MCP server over stdio (the same flags)',
    load: () => import('./serve.ts').then((serve) => ({ run: (argv: string[], context) => serve.run(argv, context, 'mcp') })),
  },
  ...clientCommands(() => import('./cli/commands.ts')),
  // `trace show FILE` serves a saved trace without a session or a browser: no client, no server.
  trace: {
    usage: 'trace start|stop|export [FILE] · trace show FILE',
    summary: "record the session's calls, write them as a zip, or open a saved one in a local inspector",
    load: async () => ({
      run: (argv: string[]) =>
        argv[0] === 'show'
          ? import('./serve.ts').then((serve) => serve.showTrace(argv.slice(1)))
          : import('./cli/commands.ts').then((cli) => cli.runClient('trace', argv)),
    }),
  },
  stop: { usage: 'stop', summary: 'end the background server the commands started (and its browser)', load: () => import('./cli/stop.ts') },
};

const code = await dispatch(process.argv.slice(2), table);
// A command that returns its code is done: exit now rather than wait for sockets to finish closing.
if (typeof code === 'number') process.exit(code);
