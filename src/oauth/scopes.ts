import type { Caller } from '../auth/caller.js'
import { AppError } from '../errors.js'

/**
 * The scopes an OAuth client can ask for. They follow the tools' access levels: `posts:read` runs the read
 * tools, `posts:write` the write tools (which may spend credits). A grant acts as one person in one
 * workspace, both chosen on the consent page.
 */
export const SCOPES = ['posts:read', 'posts:write'] as const
export type Scope = (typeof SCOPES)[number]

/** The scope a tool of this access level needs. */
export const scopeFor = (access: 'read' | 'write'): Scope =>
  access === 'read' ? 'posts:read' : 'posts:write'

/** How each scope reads on the consent page and the connected-apps list. */
export const scopeWords: Record<Scope, string> = {
  'posts:read': 'See your workspace: posts, profiles, analytics and account health (read tools)',
  'posts:write':
    'Create, change, publish and delete posts and generate images, spending the workspace’s credits (write tools)',
}

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value)

/** The scopes of a space-separated scope string that Herald knows, in a stable order. */
export function parseScopes(value: string | undefined): Scope[] {
  const asked = new Set((value ?? '').split(' ').filter(Boolean))
  return SCOPES.filter((scope) => asked.has(scope))
}

/** The refusal of a call this OAuth caller's scopes do not cover (API keys and sessions have every scope). */
export function scopeRefusal(
  caller: Caller,
  tool: { name: string; access: 'read' | 'write' },
): AppError | undefined {
  if (!caller.grant) return undefined
  const needed = scopeFor(tool.access)
  const granted = caller.grant.scopes
  if (granted.includes(needed)) return undefined
  // The challenge names what the token has plus what it lacks: a client steps up by authorizing again with
  // exactly these, and asking for the missing scope alone would lose the ones it had (MCP step-up).
  const scope = SCOPES.filter((s) => s === needed || (granted as readonly string[]).includes(s)).join(' ')
  return new AppError(
    'forbidden',
    `${tool.name} needs the ${needed} scope, which this token was not granted`,
    { oauthError: 'insufficient_scope', scope },
  )
}
