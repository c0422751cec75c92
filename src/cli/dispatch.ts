// The `pagewire` command: one table of commands, each loaded only when it runs (so a client
// command never loads the server). No command, or only flags, is `serve`, as it always was.

export interface CommandContext {
  /** The table's one-line-per-command help, for a command's own --help. */
  readonly commandsHelp: string;
}

/** What a command's module exports; the number is the exit code (undefined: leave it be). */
export interface CommandModule {
  run(argv: string[], context: CommandContext): Promise<number | void>;
}

export interface CommandEntry {
  /** How it is called, after `pagewire`. */
  readonly usage: string;
  readonly summary: string;
  load(): Promise<CommandModule>;
}

export type CommandTable = Readonly<Record<string, CommandEntry>>;

export const DEFAULT_COMMAND = 'serve';

/** Usage errors (an unknown command, a missing argument) exit 2. */
export const EXIT_USAGE = 2;

export function commandsHelp(table: CommandTable): string {
  const rows = Object.values(table).map((entry) => [`pagewire ${entry.usage}`, entry.summary] as const);
  const width = Math.max(...rows.map(([left]) => left.length));
  return ['Commands (no command: serve):', ...rows.map(([left, summary]) => `  ${left.padEnd(width)}  ${summary}`)].join('\n');
}

/** Which command argv names, and the arguments it gets. */
export function pick(argv: readonly string[], table: CommandTable): { name: string; args: string[] } | { unknown: string } {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) return { name: DEFAULT_COMMAND, args: [...argv] };
  if (first === 'help') return { name: 'help', args: argv.slice(1) };
  if (!Object.hasOwn(table, first)) return { unknown: first };
  return { name: first, args: argv.slice(1) };
}

export async function dispatch(argv: readonly string[], table: CommandTable): Promise<number | void> {
  const picked = pick(argv, table);
  const help = commandsHelp(table);
  if ('unknown' in picked) {
    console.error(`pagewire: unknown command "${picked.unknown}"\n\n${help}`);
    return EXIT_USAGE;
  }
  if (picked.name === 'help') {
    console.log(help);
    return 0;
  }
  const module = await table[picked.name]!.load();
  return module.run(picked.args, { commandsHelp: help });
}
