// Arguments of the client commands: positionals and --flags (`--name value`, `--name=value`,
// booleans bare). Only the flags a command declares are accepted.

export class UsageError extends Error {}

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

/** `spec`: flag name → 'value' (takes one) or 'bool'. */
export function parseArgs(argv: readonly string[], spec: Readonly<Record<string, 'value' | 'bool'>>): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = spec[name];
    if (kind === undefined) throw new UsageError(`unknown flag --${name}`);
    if (kind === 'bool') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    flags.set(name, value);
  }
  return { positionals, flags };
}

export function flagString(args: ParsedArgs, name: string): string | undefined {
  const value = args.flags.get(name);
  return typeof value === 'string' ? value : undefined;
}

export function flagInt(args: ParsedArgs, name: string, range: { min: number; max: number }): number | undefined {
  const text = flagString(args, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || value < range.min || value > range.max) {
    throw new UsageError(`--${name} must be a whole number from ${range.min} to ${range.max}`);
  }
  return value;
}
