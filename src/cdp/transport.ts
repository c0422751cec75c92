// The four members a CDP connection needs from its wire (pipe or WebSocket), so the
// connection can be tested against a scripted peer without any socket.
export interface CdpTransport {
  send(message: string): void;
  close(): void;
  /** One complete JSON message text. */
  onmessage?: (message: string) => void;
  /** The wire is gone (browser exited, pipe closed, socket closed). Called at most once. */
  onclose?: (reason: string) => void;
}
