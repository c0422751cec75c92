// The operating system a browser runs on, as its own user agent (Browser.getVersion) names it.
// Input follows that system's keyboard conventions (PROTOCOL.md §7: ControlOrMeta is Meta on
// macOS), and it is the browser's, not the server's: with --connect they may run on different
// machines.

export type BrowserPlatform = 'mac' | 'windows' | 'chromeos' | 'android' | 'linux' | 'other';

/**
 * The platform a Chromium user agent names. Android and ChromeOS agents also say Linux, so they
 * are looked for first; an iPhone's says "like Mac OS X", so macOS is only `Macintosh`.
 */
export function platformOfUserAgent(userAgent: string): BrowserPlatform {
  if (/\bAndroid\b/.test(userAgent)) return 'android';
  if (/\bCrOS\b/.test(userAgent)) return 'chromeos';
  if (/\bMacintosh\b/.test(userAgent)) return 'mac';
  if (/\bWindows\b/.test(userAgent)) return 'windows';
  if (/\bLinux\b/.test(userAgent)) return 'linux';
  return 'other';
}
