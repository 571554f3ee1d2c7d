/**
 * Herald's rule for a client's redirect URIs, the same for dynamically registered clients and client ID
 * metadata documents (OAuth 2.1 §2.3.1 and §7.4, RFC 8252, the MCP authorization specification):
 * - `https` on any host but a loopback one;
 * - `http` only on a loopback host (`127.0.0.1`, `[::1]`, or `localhost`, which MCP clients use), and then
 *   any port matches at authorization time (RFC 8252 §7.3: a desktop client listens on whatever port is free);
 *   path and query still match exactly;
 * - a private-use scheme (`com.example.app:/callback`, RFC 8252 §7.1) for apps that register one, never a
 *   scheme a browser runs or reads locally (`javascript:`, `data:`, `file:`…) nor another network scheme;
 * - never a fragment, never user information (`https://user@host/`).
 * Every other redirect URI must match a registered one exactly.
 */

/** The loopback host names whose port may differ from the registered one. */
export const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost'])

const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'vbscript:',
  'data:',
  'blob:',
  'file:',
  'about:',
  'filesystem:',
  'view-source:',
  'ftp:',
  'ws:',
  'wss:',
])

/** Why `uri` cannot be a redirect URI, or undefined when it can. */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri === '') return 'a redirect URI must be a non-empty string'
  const parsed = URL.parse(uri)
  if (!parsed) return `${uri} is not an absolute URL`
  if (uri.includes('#')) return `${uri} has a fragment, which a redirect URI must not have`
  if (parsed.username || parsed.password) return `${uri} carries user information`
  switch (parsed.protocol) {
    case 'https:':
      if (LOOPBACK_HOSTS.has(parsed.hostname))
        return `${uri}: a loopback redirect URI uses http (RFC 8252 §7.3), not https`
      return undefined
    case 'http:':
      if (!LOOPBACK_HOSTS.has(parsed.hostname))
        return `${uri}: http is allowed only on a loopback host (127.0.0.1, [::1] or localhost); use https`
      return undefined
    default:
      if (FORBIDDEN_SCHEMES.has(parsed.protocol))
        return `${uri}: the ${parsed.protocol.slice(0, -1)} scheme cannot be a redirect URI`
      return undefined
  }
}
