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
}

export interface CallContext {
  readonly connection: RpcConnection;
  readonly principal: Principal;
}
