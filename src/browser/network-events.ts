// What the Network domain of one target session says about its requests, as the few facts the
// network log keeps (PROTOCOL.md §13): one hop of a request starts, answers, ends or fails. A
// redirect ends a hop (with its 3xx status) and starts the next under the same request id.
import type { CdpSession } from '../cdp/session.ts';
import { type Disposable, DisposableStack } from '../util/disposable.ts';

export interface HopStart {
  requestId: string;
  method: string;
  url: string;
  /** CDP's resource type (`Document`, `XHR`, `WebSocket`…). */
  resourceType: string;
  frameId: string | undefined;
  /** Epoch ms. */
  wallTime: number;
  /** Monotonic seconds (CDP's `timestamp`), for durations. */
  timestamp: number;
}

/** Where the facts go (the session's network log). */
export interface NetworkSink {
  started(session: CdpSession, hop: HopStart): void;
  /** The monotonic start of a hop that started without one (a WebSocket's handshake). */
  timed(session: CdpSession, requestId: string, timestamp: number): void;
  responded(session: CdpSession, requestId: string, status: number): void;
  finished(session: CdpSession, requestId: string, end: { timestamp: number; bytes?: number; status?: number }): void;
  failed(session: CdpSession, requestId: string, end: { timestamp: number; errorText: string }): void;
}

/** Network.enable without buffering bodies: the log keeps no payloads. */
export function enableNetwork(session: CdpSession): Promise<unknown> {
  return session.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0, maxPostDataSize: 0 });
}

export function disableNetwork(session: CdpSession): Promise<unknown> {
  return session.send('Network.disable');
}

/** Feeds `sink` from the session's Network events (the domain is enabled separately). */
export function watchNetwork(session: CdpSession, sink: NetworkSink): Disposable {
  const stack = new DisposableStack();
  stack.add(
    session.on('Network.requestWillBeSent', (e) => {
      if (e.redirectResponse) {
        sink.finished(session, e.requestId, {
          timestamp: e.timestamp,
          status: e.redirectResponse.status,
          bytes: e.redirectResponse.encodedDataLength,
        });
      }
      sink.started(session, {
        requestId: e.requestId,
        method: e.request.method,
        url: e.request.url,
        resourceType: e.type ?? 'Other',
        frameId: e.frameId,
        wallTime: e.wallTime * 1000,
        timestamp: e.timestamp,
      });
    }),
  );
  stack.add(session.on('Network.responseReceived', (e) => sink.responded(session, e.requestId, e.response.status)));
  stack.add(
    session.on(
      'Network.loadingFinished',
      (e) => sink.finished(session, e.requestId, { timestamp: e.timestamp, bytes: e.encodedDataLength }),
    ),
  );
  stack.add(
    session.on(
      'Network.loadingFailed',
      (e) => sink.failed(session, e.requestId, { timestamp: e.timestamp, errorText: e.canceled ? 'net::ERR_ABORTED' : e.errorText }),
    ),
  );
  // A WebSocket is one entry: created, then its handshake answers (101) or it fails. Its
  // creation carries no monotonic time; the handshake request does, and durations start there.
  const open = new Set<string>();
  stack.add(
    session.on('Network.webSocketCreated', (e) => {
      open.add(e.requestId);
      sink.started(session, {
        requestId: e.requestId,
        method: 'GET',
        url: e.url,
        resourceType: 'WebSocket',
        frameId: undefined,
        wallTime: Date.now(),
        timestamp: NaN,
      });
    }),
  );
  stack.add(session.on('Network.webSocketWillSendHandshakeRequest', (e) => sink.timed(session, e.requestId, e.timestamp)));
  stack.add(
    session.on('Network.webSocketHandshakeResponseReceived', (e) => {
      open.delete(e.requestId);
      sink.finished(session, e.requestId, { timestamp: e.timestamp, status: e.response.status });
    }),
  );
  const socketFailed = (requestId: string, timestamp: number, errorText: string) => {
    // After its handshake a socket that closes or errs is not a failed request.
    if (!open.delete(requestId)) return;
    sink.failed(session, requestId, { timestamp, errorText });
  };
  stack.add(session.on('Network.webSocketFrameError', (e) => socketFailed(e.requestId, e.timestamp, e.errorMessage)));
  stack.add(
    session.on(
      'Network.webSocketClosed',
      (e) => socketFailed(e.requestId, e.timestamp, 'net::ERR_CONNECTION_CLOSED (before the handshake)'),
    ),
  );
  stack.defer(() => open.clear());
  return stack;
}
