import { createHash, randomBytes } from 'node:crypto'
import { parseCookie, stringifySetCookie } from 'cookie'
import type { Db } from '../../platform/db/db.js'

/**
 * Dashboard sign-in sessions. The browser holds a random token in an httpOnly cookie; the database holds
 * only its SHA-256 (`sessions.id`), so a copy of the database does not sign anyone in. Each session has
 * its own CSRF token, which every POST form of the dashboard carries.
 */

export const SESSION_COOKIE = 'herald_session'

/**
 * The session cookie's name: with the `__Host-` prefix behind https (the browser then takes it only with
 * Secure, Path=/ and no Domain, so a sibling subdomain cannot plant or overwrite it), plain over http,
 * where browsers refuse the prefix.
 */
export function sessionCookieName(secure: boolean): string {
  return secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE
}
/** Double-submit CSRF cookie of the sign-in form (there is no session yet to hold a token). */
export const LOGIN_CSRF_COOKIE = 'herald_login_csrf'

export interface DashboardSession {
  /** SHA-256 of the cookie token (hex); the row's primary key. */
  id: string
  userId: string
  /** The workspace the dashboard acts in; switched with the channels page's selector. */
  workspaceId: string
  csrfToken: string
  expiresAt: number
}

export const randomToken = (bytes = 32) => randomBytes(bytes).toString('base64url')
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** Starts a session; returns the cookie token (shown to the browser once, stored only as a hash). */
export async function createSession(
  db: Db,
  input: { userId: string; workspaceId: string; ttlMs: number },
  now: number,
): Promise<{ token: string; session: DashboardSession }> {
  const token = randomToken()
  const session: DashboardSession = {
    id: hashToken(token),
    userId: input.userId,
    workspaceId: input.workspaceId,
    csrfToken: randomToken(24),
    expiresAt: now + input.ttlMs,
  }
  await db
    .insertInto('sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      workspace_id: session.workspaceId,
      csrf_token: session.csrfToken,
      created_at: now,
      expires_at: session.expiresAt,
    })
    .execute()
  return { token, session }
}

/** The live session behind a cookie token, or undefined (unknown, malformed or expired). */
export async function findSession(
  db: Db,
  token: string | undefined,
  now: number,
): Promise<DashboardSession | undefined> {
  if (!token || token.length > 128) return undefined
  const row = await db
    .selectFrom('sessions')
    .selectAll()
    .where('id', '=', hashToken(token))
    .where('expires_at', '>', now)
    .executeTakeFirst()
  if (!row) return undefined
  return {
    id: row.id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    csrfToken: row.csrf_token,
    expiresAt: Number(row.expires_at),
  }
}

export async function deleteSession(db: Db, sessionId: string) {
  await db.deleteFrom('sessions').where('id', '=', sessionId).execute()
}

export async function setSessionWorkspace(db: Db, sessionId: string, workspaceId: string) {
  await db.updateTable('sessions').set({ workspace_id: workspaceId }).where('id', '=', sessionId).execute()
}

/** Drops sessions that ended (called on sign-in, so the table does not grow without bound). */
export async function purgeExpiredSessions(db: Db, now: number) {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute()
}

/** The cookies of a `Cookie` header (first value wins for a repeated name), read by the `cookie` package (jshttp). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {}
  if (!header) return cookies
  for (const [name, value] of Object.entries(parseCookie(header)))
    if (value !== undefined) cookies[name] = value
  return cookies
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. Omitted: a browser-session cookie. */
  maxAge?: number
  secure: boolean
  path?: string
}

/** A `Set-Cookie` value: always httpOnly and SameSite=Lax, Secure when the service is served over https. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  return stringifySetCookie({
    name,
    value,
    path: options.path ?? '/',
    httpOnly: true,
    sameSite: 'lax',
    ...(options.maxAge !== undefined ? { maxAge: Math.max(0, Math.floor(options.maxAge)) } : {}),
    secure: options.secure,
  })
}
