// The package version (a test checks it against package.json) and the wire contract version.
export const VERSION = '0.1.0';
export const PROTOCOL_VERSION = '1';
