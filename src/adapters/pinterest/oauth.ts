import type { Credentials, GrantProfile, OAuthFlow, Profile } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { num, type PinterestBody, type PinterestContext, pinterestCall, readBody, str } from './client.js'
import { classifyPinterestError } from './errors.js'
import { apiBase, PINTEREST_SCOPES } from './settings.js'

/**
 * Pinterest's OAuth 2 (reference B.2): the consent page at www.pinterest.com/oauth/, the code exchanged at
 * `/v5/oauth/token` with the app's id and secret as HTTP Basic, tokens refreshed there with the continuous
 * refresh token (60 days, renewed on each refresh; `continuous_refresh=true` asks for it on apps made before
 * 2025-09-25, as the endpoint's description says). Pinterest documents no PKCE: Herald's signed single-use
 * state is the CSRF protection.
 *
 * One grant reaches every board of the account, and each board is a profile of its own (DESIGN.md
 * "Networks"): the choose-profiles page lists them, each ticked one becomes a connection with the same
 * tokens and its board id in `extra.boardId`.
 */

const BOARDS_PAGE_SIZE = 250
/** Boards read at connect: 10 pages of 250, past any account a person manages by hand. */
const MAX_BOARD_PAGES = 10

/** The token endpoint's answer as credentials; the refresh token's own end in `extra.refreshTokenExpiresAt`. */
export function tokenCredentials(answer: PinterestBody, now: number, previous?: Credentials): Credentials {
  const accessToken = str(answer.access_token)
  if (!accessToken) throw new PublishFailure('auth_expired', 'Pinterest answered without an access token')
  const expiresIn = num(answer.expires_in)
  const refreshToken = str(answer.refresh_token) ?? previous?.refreshToken
  const extra: Record<string, string> = { ...(previous?.extra ?? {}) }
  const refreshEndsAt = num(answer.refresh_token_expires_at)
  const refreshIn = num(answer.refresh_token_expires_in)
  if (refreshEndsAt !== undefined) extra.refreshTokenExpiresAt = String(refreshEndsAt * 1000)
  else if (refreshIn !== undefined) extra.refreshTokenExpiresAt = String(now + refreshIn * 1000)
  return {
    accessToken,
    ...(refreshToken ? { refreshToken } : {}),
    ...(expiresIn !== undefined ? { expiresAt: now + expiresIn * 1000 } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  }
}

/** POSTs a form to `/oauth/token` with the app's Basic credentials; secrets never reach a message. */
export async function tokenRequest(ctx: PinterestContext, form: Record<string, string>, what: string) {
  const { settings, deps } = ctx
  const basic = Buffer.from(`${settings.appId}:${settings.appSecret ?? ''}`).toString('base64')
  let response: Response
  try {
    response = await deps.http(`${apiBase(settings)}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(30_000),
      redirect: 'error',
    })
  } catch {
    throw new PublishFailure('transient', `Pinterest could not be reached for ${what}`)
  }
  const body = await readBody(response)
  if (response.ok) return body
  const secrets = [...Object.values(form), basic, settings.appSecret]
  if (response.status === 400 || response.status === 401)
    // A code or refresh token that is spent, expired or revoked: only a new grant helps.
    throw new PublishFailure(
      'auth_expired',
      `Pinterest refused ${what} (${classifyPinterestError({ status: response.status, body, what, sentIsCreate: false, now: deps.now(), secrets }).message}); reconnect the profile`,
      { code: String(body.code ?? response.status), status: response.status },
    )
  throw classifyPinterestError({
    status: response.status,
    body,
    headers: response.headers,
    what,
    sentIsCreate: false,
    now: deps.now(),
    secrets,
  })
}

/** The account behind a token (`GET /user_account`). */
export async function readAccount(ctx: PinterestContext, token: string, signal?: AbortSignal) {
  const body = await pinterestCall(ctx, {
    method: 'GET',
    path: '/user_account',
    token,
    what: 'the account',
    ...(signal ? { signal } : {}),
  })
  const id = str(body.id)
  const username = str(body.username)
  if (!id || !username) throw new PublishFailure('transient', 'Pinterest answered without the account')
  return { id, username, body }
}

interface BoardRow {
  id: string
  name: string
  privacy?: string
  owner?: string
}

/** Every board the account can pin to (its own and group boards), page by page (`bookmark`). */
export async function listBoards(ctx: PinterestContext, token: string): Promise<BoardRow[]> {
  const boards: BoardRow[] = []
  let bookmark: string | undefined
  for (let page = 0; page < MAX_BOARD_PAGES; page++) {
    const body = await pinterestCall(ctx, {
      method: 'GET',
      path: '/boards',
      query: { page_size: String(BOARDS_PAGE_SIZE), ...(bookmark ? { bookmark } : {}) },
      token,
      what: 'the boards',
    })
    for (const item of Array.isArray(body.items) ? (body.items as PinterestBody[]) : []) {
      const id = str(item.id)
      if (!id) continue
      const owner = str((item.owner as PinterestBody | undefined)?.username)
      boards.push({
        id,
        name: str(item.name) ?? id,
        ...(str(item.privacy) ? { privacy: item.privacy as string } : {}),
        ...(owner ? { owner } : {}),
      })
    }
    bookmark = str(body.bookmark)
    if (!bookmark) break
  }
  return boards
}

/** A board as Herald's profile: its id and name, the account's username and picture. */
export const boardProfile = (
  board: { id: string; name: string },
  account: { username: string; body: PinterestBody },
): Profile => ({
  profileId: board.id,
  username: account.username,
  name: board.name,
  isOrganization: false,
  ...(str(account.body.profile_image) ? { avatarUrl: account.body.profile_image as string } : {}),
})

export function createPinterestOAuth(ctx: PinterestContext): OAuthFlow {
  const { settings, deps } = ctx
  return {
    scopes: PINTEREST_SCOPES,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(settings.authorizeUrl)
      url.searchParams.set('client_id', settings.appId)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('scope', PINTEREST_SCOPES.join(','))
      url.searchParams.set('state', state)
      return url.toString()
    },
    async exchangeCode({ code, redirectUri }) {
      const answer = await tokenRequest(
        ctx,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          continuous_refresh: 'true',
        },
        'the code exchange',
      )
      const credentials = tokenCredentials(answer, deps.now())
      const granted = (str(answer.scope) ?? '').split(/[\s,]+/).filter(Boolean)
      return { credentials, grantedScopes: granted }
    },
    async listProfiles(credentials) {
      const account = await readAccount(ctx, credentials.accessToken)
      const boards = await listBoards(ctx, credentials.accessToken)
      return boards.map(
        (board): GrantProfile => ({
          network: 'pinterest',
          profile: boardProfile(board, account),
          credentials: {
            ...credentials,
            extra: { ...(credentials.extra ?? {}), accountId: account.id, boardId: board.id },
          },
          kind: board.owner && board.owner !== account.username ? `Group board of @${board.owner}` : 'Board',
        }),
      )
    },
  }
}
