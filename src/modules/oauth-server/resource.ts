/**
 * Herald's resource identifiers (RFC 8707) and the addresses of their metadata (RFC 9728). The whole service
 * is one resource (`PUBLIC_BASE_URL`, REST and MCP alike); `/mcp` is also its own, because MCP clients ask
 * for a token for the URL they were given. A token is bound to the one it was issued for.
 */
export type Surface = 'mcp' | 'rest'

export const serviceResource = (baseUrl: string) => baseUrl
export const mcpResource = (baseUrl: string) => `${baseUrl}/mcp`

/** The resources Herald issues tokens for. */
export const knownResources = (baseUrl: string) => [serviceResource(baseUrl), mcpResource(baseUrl)]

/** The resources a token may be bound to, to be accepted on this surface. */
export function acceptedResources(baseUrl: string, surface: Surface): string[] {
  return surface === 'mcp' ? knownResources(baseUrl) : [serviceResource(baseUrl)]
}

/** RFC 9728 §3.1: the metadata of a resource with a path sits at the well-known path followed by that path. */
export function resourceMetadataUrl(baseUrl: string, surface: Surface): string {
  const origin = new URL(baseUrl).origin
  const resource = surface === 'mcp' ? mcpResource(baseUrl) : serviceResource(baseUrl)
  const path = new URL(resource).pathname.replace(/\/$/, '')
  return `${origin}/.well-known/oauth-protected-resource${path}`
}
