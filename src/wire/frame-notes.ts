// The one wording of what an observation could not read of a frame (a frame left `unavailable`, or
// one observed without its layout), as the CLI and the inspector say it. Its own module, with no
// schema in it, so that the CLI and the inspector can use it without loading zod.

/** What a note needs of an observation's frame (an element of its `frames`). */
export interface NotedFrame {
  url: string;
  status: 'observed' | 'unavailable';
  reason?: string | undefined;
}

/** A frame an observation could not read, whole or in part, in words. */
export interface FrameNote {
  status: NotedFrame['status'];
  text: string;
}

/**
 * A line for each frame an observation could not read, in its order: `frame unavailable: URL
 * (reason)`, or `frame URL: reason` for one observed without a part of it. A frame read whole
 * gets none.
 */
export function frameNotes(frames: readonly NotedFrame[]): FrameNote[] {
  return frames
    .filter((frame) => frame.status === 'unavailable' || frame.reason !== undefined)
    .map((frame) => ({
      status: frame.status,
      text: frame.status === 'unavailable'
        ? `frame unavailable: ${frame.url} (${frame.reason ?? 'no reason given'})`
        : `frame ${frame.url}: ${frame.reason}`,
    }));
}
