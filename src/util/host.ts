// Host names and addresses: what counts as loopback, and how a host goes into a URL.

/** 127.0.0.0/8, ::1 (bracketed or not, or written out), IPv4-mapped loopback, and localhost. */
export function isLoopbackHost(host: string): boolean {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const mapped = /^(?:0:0:0:0:0|:):ffff:(.+)$/.exec(h);
  if (mapped) h = mapped[1]!;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  return octets !== null && octets[1] === '127' && octets.slice(2).every((o) => Number(o) <= 255);
}

/** Brackets an IPv6 literal for use in a URL authority. */
export function hostForUrl(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
