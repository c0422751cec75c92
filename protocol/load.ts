// Reads the pinned protocol description from the installed devtools-protocol package:
// json/js_protocol.json and json/browser_protocol.json, merged in that order, plus the sha256
// of their bytes and the package version. Only node:fs / node:url / node:crypto are used so
// this runs unchanged under tsx (Node 20) and Deno.
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Domain, Protocol } from './schema.ts';

/** The input files, relative to the devtools-protocol package, in merge (and hash) order. */
export const INPUT_FILES: readonly string[] = ['json/js_protocol.json', 'json/browser_protocol.json'];

export interface LoadedProtocol {
  /** Both files merged: js_protocol domains first, then browser_protocol domains. */
  readonly protocol: Protocol;
  /** `version` from devtools-protocol/package.json. */
  readonly packageVersion: string;
  /** sha256 (hex) over the bytes of INPUT_FILES, concatenated in order. */
  readonly sha256: string;
  /** Absolute paths of the files that were read, in INPUT_FILES order. */
  readonly paths: readonly string[];
}

/** Absolute path of a file inside the installed devtools-protocol package. */
export function packageFile(relative: string): string {
  return fileURLToPath(import.meta.resolve(`devtools-protocol/${relative}`));
}

/** sha256 (lower-case hex) over the given chunks, concatenated. */
export function sha256Hex(chunks: readonly Uint8Array[]): string {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest('hex');
}

/** Parses one protocol JSON text, checking the outer shape. */
export function parseProtocol(text: string, source: string): Protocol {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { domains?: unknown }).domains)) {
    throw new Error(`${source}: expected an object with a "domains" array`);
  }
  const protocol = value as Protocol;
  for (const domain of protocol.domains as readonly unknown[]) {
    if (typeof domain !== 'object' || domain === null || typeof (domain as Domain).domain !== 'string') {
      throw new Error(`${source}: every domain needs a string "domain" name`);
    }
  }
  return protocol;
}

/** Concatenates the domains of several protocol files; a domain defined twice is an error. */
export function mergeProtocols(parts: readonly Protocol[]): Protocol {
  const seen = new Set<string>();
  const domains: Domain[] = [];
  for (const part of parts) {
    for (const domain of part.domains) {
      if (seen.has(domain.domain)) throw new Error(`domain ${domain.domain} is defined twice`);
      seen.add(domain.domain);
      domains.push(domain);
    }
  }
  const version = parts.find((part) => part.version !== undefined)?.version;
  return version === undefined ? { domains } : { version, domains };
}

/** Reads, hashes and merges the installed protocol JSON files. */
export function loadProtocol(): LoadedProtocol {
  const paths = INPUT_FILES.map(packageFile);
  const bytes = paths.map((path) => readFileSync(path));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const protocol = mergeProtocols(bytes.map((data, i) => parseProtocol(decoder.decode(data), paths[i]!)));
  const pkg: unknown = JSON.parse(readFileSync(packageFile('package.json'), 'utf8'));
  const packageVersion = (pkg as { version?: unknown }).version;
  if (typeof packageVersion !== 'string') throw new Error('devtools-protocol/package.json has no version');
  return { protocol, packageVersion, sha256: sha256Hex(bytes), paths };
}
