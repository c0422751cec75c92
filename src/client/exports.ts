// What both entry points export besides connect().
export { Client, type ClientOptions } from './client.ts';
export { Session, type ActOptions, type CallOptions } from './session.ts';
export { EventStream, type EventStreamOptions } from './events.ts';
export { Screencast, type ScreencastOptions } from './screencast.ts';
export { PagewireError, RpcError, ConnectionError, isPagewireError, type ClientErrorType } from './errors.ts';
export type { ReconnectOptions } from './backoff.ts';
export type { SocketFactory, WebSocketClass, WebSocketLike } from './socket.ts';
export type * from './wire.ts';
