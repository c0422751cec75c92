// What a method handler knows about who is calling and over which connection.

/** The holder of one token. Sessions belong to a principal; another principal gets `forbidden`. */
export interface Principal {
  readonly id: string;
}

/** One client socket as the RPC layer sees it; the runtime adapter implements it. */
export interface RpcConnection {
  readonly id: string;
  readonly principal: Principal;
  /** Aborted when the socket closes: subscriptions and waits hang off it. */
  readonly signal: AbortSignal;
  /** Sends a JSON-RPC notification (used for events). Returns false when the socket is gone. */
  notify(method: string, params: unknown): boolean;
  /** Bytes queued on the socket and not yet written (for event backpressure). */
  bufferedAmount(): number;
  /**
   * The connection lives for one HTTP request (POST /rpc): nothing can be pushed to it, so what
   * delivers events over the connection (events.subscribe, screencast.start) is refused.
   */
  readonly requestScoped?: boolean;
}

export interface CallContext {
  readonly connection: RpcConnection;
  readonly principal: Principal;
  /**
   * Aborted when the caller withdraws this one call (an MCP cancellation, or its HTTP request
   * closing): a queued call is dropped, a running one is cancelled exactly as `cancel` does.
   */
  readonly signal?: AbortSignal;
  /** Stages of a long call (an act's steps, its waits and navigations) for a caller that asked. */
  readonly progress?: (message: string) => void;
}
