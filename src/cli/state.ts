// What the CLI remembers between commands, per user, server and session: the observation it
// printed last (so `pagewire click @3` acts on what the user saw) and the last event seq shown.
// One small file per server+session, written atomically (a temporary file renamed over it),
// readable by its owner only. It never holds the token (the server is keyed without its query)
// or anything typed or read from the page but its (redacted) URL: ids, the URL, a seq.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

export interface SavedState {
  /** The observation acted on next. */
  state_id?: string;
  target_id?: string;
  url?: string;
  /** The last event seq `pagewire events` printed. */
  event_seq?: number;
}

export function stateDir(env: Record<string, string | undefined>): string {
  const base = env['XDG_STATE_HOME'] || join(env['HOME'] || homedir(), '.local', 'state');
  return join(base, 'pagewire');
}

/** The server without its query or fragment (where a token may be), and the session. */
export function stateKey(serverUrl: string, session: string | undefined): string {
  const url = new URL(serverUrl);
  return `${url.protocol}//${url.host}${url.pathname}#${session ?? 'default'}`;
}

export class StateFile {
  readonly path: string;
  readonly #dir: string;
  readonly key: string;

  constructor(init: { dir: string; key: string }) {
    this.#dir = init.dir;
    this.key = init.key;
    const readable = init.key.replace(/^[a-z]+:\/\//, '').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
    const hash = createHash('sha256').update(init.key).digest('hex').slice(0, 12);
    this.path = join(init.dir, `${readable}-${hash}.json`);
  }

  read(): SavedState {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { key?: string; state?: SavedState };
      return parsed.key === this.key && parsed.state ? parsed.state : {};
    } catch {
      return {};
    }
  }

  write(state: SavedState): void {
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.${Date.now()}.tmp`;
    const body: SavedState = {
      ...(state.state_id !== undefined ? { state_id: state.state_id } : {}),
      ...(state.target_id !== undefined ? { target_id: state.target_id } : {}),
      ...(state.url !== undefined ? { url: state.url } : {}),
      ...(state.event_seq !== undefined ? { event_seq: state.event_seq } : {}),
    };
    try {
      writeFileSync(temporary, `${JSON.stringify({ key: this.key, saved_at: Date.now(), state: body })}\n`, { mode: 0o600 });
      renameSync(temporary, this.path);
    } catch (error) {
      try {
        unlinkSync(temporary);
      } catch {
        // nothing was written
      }
      throw error;
    }
  }

  update(change: Partial<SavedState> & { forgetObservation?: boolean }): void {
    const { forgetObservation, ...fields } = change;
    const current = this.read();
    if (forgetObservation) {
      delete current.state_id;
      delete current.target_id;
      delete current.url;
    }
    this.write({ ...current, ...fields });
  }
}
