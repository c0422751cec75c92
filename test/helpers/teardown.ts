// Shared resources (a browser, a fixture server) are created lazily by the suites that need
// them and released here once every suite has run, so no test run leaves a process behind.
const teardowns: Array<() => Promise<void> | void> = [];

export function onTeardown(fn: () => Promise<void> | void): void {
  teardowns.push(fn);
}

export async function runTeardowns(): Promise<void> {
  while (teardowns.length > 0) {
    const fn = teardowns.pop()!;
    try {
      await fn();
    } catch (error) {
      console.error('teardown failed:', error);
    }
  }
}
