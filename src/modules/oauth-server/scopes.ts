import { AppError } from '../../platform/errors.js'
import type { Caller } from '../accounts/caller.js'

/**
 * The scopes an OAuth client can ask for. They follow the tools' access levels: `posts:read` runs the read
 * tools, `posts:write` the write tools and every call that spends credits. A grant acts as one person in
 * one workspace, both chosen on the consent page.
 */
export const SCOPES = ['posts:read', 'posts:write'] as const
export type Scope = (typeof SCOPES)[number]

/** The scope a tool of this access level needs. */
export const scopeFor = (access: 'read' | 'write'): Scope =>
  access === 'read' ? 'posts:read' : 'posts:write'

/** How each scope reads on the consent page and the connected-apps list. */
export const scopeWords: Record<Scope, string> = {
  'posts:read':
    'See your workspace: posts, profiles, stored analytics and account health, never spending credits (read tools)',
  'posts:write':
    'Create, change, publish and delete posts, generate images and refresh analytics from the networks, spending the workspace’s credits (write tools)',
}

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value)

/** The scopes of a space-separated scope string that Herald knows, in a stable order. */
export function parseScopes(value: string | undefined): Scope[] {
  const asked = new Set((value ?? '').split(' ').filter(Boolean))
  return SCOPES.filter((scope) => asked.has(scope))
}

/** What a scope check needs to know of a tool (src/interfaces/tools/tool.ts). */
export interface ScopedTool {
  name: string
  access: 'read' | 'write'
  spendsWith?: ((args: Readonly<Record<string, unknown>>) => string | undefined) | undefined
}

/**
 * The refusal of a call this OAuth caller's scopes do not cover (API keys and sessions have every scope). A
 * read tool called with arguments that spend credits (`spendsWith`) needs `posts:write`: the consent page
 * promises that read access never spends credits. `args` are the call's arguments as sent.
 */
export function scopeRefusal(caller: Caller, tool: ScopedTool, args?: unknown): AppError | undefined {
  if (!caller.grant) return undefined
  const spending = tool.access === 'read' ? tool.spendsWith?.(argumentsOf(args)) : undefined
  const needed = scopeFor(spending ? 'write' : tool.access)
  const granted = caller.grant.scopes
  if (granted.includes(needed)) return undefined
  // The challenge names what the token has plus what it lacks: a client steps up by authorizing again with
  // exactly these, and asking for the missing scope alone would lose the ones it had (MCP step-up).
  const scope = SCOPES.filter((s) => s === needed || (granted as readonly string[]).includes(s)).join(' ')
  return new AppError(
    'forbidden',
    spending
      ? `${tool.name} with ${spending} spends credits and needs the ${needed} scope, which this token was not granted`
      : `${tool.name} needs the ${needed} scope, which this token was not granted`,
    { oauthError: 'insufficient_scope', scope },
  )
}

const argumentsOf = (args: unknown): Readonly<Record<string, unknown>> =>
  typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {}
