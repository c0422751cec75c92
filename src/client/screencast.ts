// A tab's live view from the SDK: screencast.start, each frame handed to a callback, and started
// again after a reconnect (a screencast ends with its socket on the server).
import type { Connection } from './connection.ts';
import type { ScreencastFrame, ScreencastStartParams, ScreencastStartResult } from './wire.ts';

export interface ScreencastOptions extends Omit<ScreencastStartParams, 'session_id'> {
  /** Called with each frame (the newest the server had when this connection could take one). */
  onFrame: (frame: ScreencastFrame, event: { seq: number; target_id: string; time: number }) => void;
}

export class Screencast {
  readonly #connection: Connection;
  readonly #params: Record<string, unknown>;
  readonly #timeoutMs: number;
  readonly #disposers: Array<() => void> = [];
  #subscriptionId: string | undefined;
  #targetId: string | undefined;
  #stopped = false;

  private constructor(init: { connection: Connection; params: Record<string, unknown>; timeoutMs: number }) {
    this.#connection = init.connection;
    this.#params = init.params;
    this.#timeoutMs = init.timeoutMs;
  }

  static async start(
    init: { connection: Connection; sessionId: string | undefined; options: ScreencastOptions; timeoutMs: number },
  ): Promise<Screencast> {
    const { onFrame, ...wire } = init.options;
    const params = { ...(init.sessionId !== undefined ? { session_id: init.sessionId } : {}), ...wire };
    const screencast = new Screencast({ connection: init.connection, params, timeoutMs: init.timeoutMs });
    screencast.#disposers.push(
      init.connection.onNotification((method, raw) => {
        const event = raw as {
          subscription_id?: string;
          kind?: string;
          seq: number;
          target_id: string;
          time: number;
          data: ScreencastFrame;
        };
        if (method !== 'event' || event.kind !== 'screencast' || event.subscription_id !== screencast.#subscriptionId) return;
        onFrame(event.data, { seq: event.seq, target_id: event.target_id, time: event.time });
      }),
      init.connection.onReconnect(() => void screencast.#start().catch(() => {})),
    );
    try {
      await screencast.#start();
    } catch (error) {
      screencast.#dispose();
      throw error;
    }
    return screencast;
  }

  /** The tab streamed. */
  get targetId(): string | undefined {
    return this.#targetId;
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#dispose();
    const { session_id } = this.#params;
    await this.#connection.call(
      'screencast.stop',
      { ...(session_id !== undefined ? { session_id } : {}), ...(this.#targetId !== undefined ? { target_id: this.#targetId } : {}) },
      { resend: true, timeoutMs: this.#timeoutMs },
    );
  }

  async #start(): Promise<void> {
    if (this.#stopped) return;
    // The same tab after a reconnect, even if another one was selected meanwhile.
    const params = this.#targetId !== undefined ? { ...this.#params, target_id: this.#targetId } : this.#params;
    const result = await this.#connection.call<ScreencastStartResult>('screencast.start', params, {
      resend: true,
      timeoutMs: this.#timeoutMs,
    });
    this.#subscriptionId = result.subscription_id;
    this.#targetId = result.target_id;
  }

  #dispose(): void {
    for (const dispose of this.#disposers.splice(0)) dispose();
  }
}
