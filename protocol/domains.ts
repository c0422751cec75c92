// What the generator emits: the domains pagewire drives (plus, via select.ts, the types they
// reference from other domains), and the deprecated commands/events that stay callable anyway.
// Editing this file changes protocol/generated/*; run `npm run gen` afterwards.

/** Domains emitted in full (types, commands, events). Order does not matter: output follows the JSON. */
export const DOMAINS: readonly string[] = [
  'Accessibility',
  'Browser',
  'CSS',
  'DOM',
  'DOMDebugger',
  'DOMSnapshot',
  'Emulation',
  'Fetch',
  'IO',
  'Input',
  'Inspector',
  'Log',
  'Network',
  'Overlay',
  'Page',
  'Runtime',
  'Security',
  'Storage',
  'Target',
];

/**
 * Deprecated commands and events that stay in CommandMap/EventMap (every other deprecated one is
 * left out, so using it is a compile error). Each entry must exist in an allowlisted domain.
 */
export const KEEP_DEPRECATED: readonly string[] = [
  // Older Chromium only has the Page.* download events; downloads.ts listens to both.
  'Page.downloadWillBegin',
  'Page.downloadProgress',
  'Page.frameScheduledNavigation',
  'Page.frameClearedScheduledNavigation',
  'Page.setDownloadBehavior',
];
