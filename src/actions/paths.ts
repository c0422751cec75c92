// The actions layer's view of upload paths: it hands files to Chromium only through this, and
// never touches the file system itself. The runtime provides it (src/runtime/upload-paths.ts).
export interface PathPolicy {
  /** Absolute real paths, in order, each allowed to be uploaded; throws (accepting none) otherwise. */
  resolve(paths: string[]): Promise<string[]>;
}
