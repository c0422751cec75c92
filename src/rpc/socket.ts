// The server side of one client WebSocket as the RPC layer needs it. rpc owns this
// interface and the runtime implements it, so nothing under src/rpc imports a runtime.

export interface RpcSocket {
  /** Sends one text frame; a no-op once the socket is no longer open. */
  send(text: string): void;
  /** Starts the closing handshake (`reason` is cut to the 123 bytes a close frame allows). */
  close(code: number, reason: string): void;
  /** Bytes queued by `send` and not yet written, framing included (for event backpressure). */
  bufferedAmount(): number;
}
