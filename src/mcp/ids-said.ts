// What a model has already read of ids in one MCP conversation. Ids are about half the text of a
// small task when every result repeats them, and a model needs an id only to pass it back: a
// text names the tab or the session only when it is not the one it named before, and never the
// principal's default session, which every tool takes when session_id is left out.

export class IdsSaid {
  #session: string | undefined;
  #tab: string | undefined;
  readonly #defaultSession: () => string | undefined;

  constructor(defaultSession: () => string | undefined) {
    this.#defaultSession = defaultSession;
  }

  /** Which of these ids a text should name now; from then on, they are the ones said. */
  say(sessionId: string | undefined, targetId: string | undefined): { session?: string; tab?: string } {
    const named: { session?: string; tab?: string } = {};
    const otherSession = sessionId !== undefined && sessionId !== this.#session;
    if (otherSession && sessionId !== this.#defaultSession()) named.session = sessionId;
    // Another session's tab is new to the model even when its id were the same.
    if (targetId !== undefined && (targetId !== this.#tab || otherSession)) named.tab = targetId;
    if (sessionId !== undefined) this.#session = sessionId;
    if (targetId !== undefined) this.#tab = targetId;
    return named;
  }
}
