// Reading files: a small text file the configuration names (--secrets-file), for parseConfig;
// a file the server wrote, for the MCP host to embed (McpFiles).
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

export function readTextFile(path: string): string {
  return readFileSync(path, 'utf8');
}

/** McpFiles (src/mcp/host.ts) on node:fs. */
export const nodeFileReader = {
  read: async (path: string): Promise<Uint8Array> => new Uint8Array(await readFile(path)),
};
