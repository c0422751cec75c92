// What both entry points export besides connect().
export { Client, type ClientOptions } from './client.ts';
export { type ActOptions, type CallOptions, Session } from './session.ts';
export { EventStream, type EventStreamOptions } from './events.ts';
export { Screencast, type ScreencastOptions } from './screencast.ts';
export { type ClientErrorType, ConnectionError, isPagewireError, PagewireError, RpcError } from './errors.ts';
export type { ReconnectOptions } from './backoff.ts';
export type { SocketFactory, WebSocketClass, WebSocketLike } from './socket.ts';
export type * from './wire.ts';
