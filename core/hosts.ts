// Host names as network allow-lists read them: the sandbox's proxy decides with them what a command
// reaches, and an agent's run tells with them whether a refused host was its model's.

/** A host as compared: lower case, no trailing dot, no brackets around an IPv6 address. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/** `host` allows exactly that host; `*.host` allows every subdomain of it (not `host` itself). */
export function hostAllowed(host: string, allow: readonly string[]): boolean {
  const h = normalizeHost(host);
  return allow.some((pattern) => {
    const p = normalizeHost(pattern);
    return p.startsWith('*.') ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
  });
}
