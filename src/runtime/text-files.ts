// Reading a small text file the configuration names (--secrets-file), for parseConfig.
import { readFileSync } from 'node:fs';

export function readTextFile(path: string): string {
  return readFileSync(path, 'utf8');
}
