import type { Credentials, GrantProfile, OAuthFlow, Profile } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { enc, type LinkedInContext, linkedinCall } from './client.js'
import { classifyLinkedInError } from './errors.js'
import { linkedinScopes, ORGANIZATION_SCOPES } from './settings.js'

/**
 * LinkedIn's 3-legged OAuth (reference A.2, A.3): the authorization page, the form token exchange, the
 * member from `/v2/userinfo` and every page the member administers from `organizationAcls` (roles
 * ADMINISTRATOR and CONTENT_ADMINISTRATOR, each paginated; both `organization` and the older
 * `organizationalTarget` read). LinkedIn's web flow takes no PKCE: Herald's signed single-use state is
 * the CSRF protection (the verifier is kept by the flow and not sent).
 */

/** Wait before the one retry of the `REVOKED_ACCESS_TOKEN` LinkedIn sometimes answers right after an exchange. */
export const REVOKED_RETRY_DELAY_MS = 2_000
const ACL_PAGE_SIZE = 20
const ADMIN_ROLES = ['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR'] as const

const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)

/** Token endpoint answer → credentials; the refresh token's own end kept in `extra.refreshTokenExpiresAt`. */
export function tokenCredentials(
  answer: Record<string, unknown>,
  now: number,
  previous?: Credentials,
): Credentials {
  const accessToken = str(answer.access_token)
  if (!accessToken) throw new PublishFailure('auth_expired', 'LinkedIn answered without an access token')
  const expiresIn = num(answer.expires_in)
  const refreshToken = str(answer.refresh_token) ?? previous?.refreshToken
  const refreshIn = num(answer.refresh_token_expires_in)
  const extra: Record<string, string> = { ...(previous?.extra ?? {}) }
  // Refreshing does not extend the refresh token: its end counts down from the first grant (reference A.2).
  if (refreshIn !== undefined) extra.refreshTokenExpiresAt = String(now + refreshIn * 1000)
  return {
    accessToken,
    ...(refreshToken ? { refreshToken } : {}),
    ...(expiresIn !== undefined ? { expiresAt: now + expiresIn * 1000 } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  }
}

/** POSTs a form to the token endpoint; secrets never reach a message. */
export async function tokenRequest(ctx: LinkedInContext, form: Record<string, string>, what: string) {
  let response: Response
  try {
    response = await ctx.deps.http(ctx.settings.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(30_000),
      redirect: 'error',
    })
  } catch {
    throw new PublishFailure('transient', `LinkedIn could not be reached for ${what}`)
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (response.ok) return body
  if (response.status === 400 || response.status === 401)
    // OAuth errors (`invalid_grant`, `invalid_request`): the grant is gone, only a new one helps.
    throw new PublishFailure(
      'auth_expired',
      `LinkedIn refused ${what} (${str(body.error) ?? response.status}); reconnect the profile`,
      { code: str(body.error) ?? String(response.status), status: response.status },
    )
  throw classifyLinkedInError({
    status: response.status,
    body,
    what,
    version: ctx.settings.version,
    sentIsCreate: false,
    now: ctx.deps.now(),
    secrets: Object.values(form),
  })
}

/** `/v2/userinfo`, retried once after a short delay when LinkedIn answers the known fresh-token `REVOKED_ACCESS_TOKEN`. */
export async function readUserinfo(ctx: LinkedInContext, token: string): Promise<Record<string, unknown>> {
  const call = () =>
    linkedinCall(ctx, { method: 'GET', path: '/v2/userinfo', token, what: 'the member profile' })
  try {
    return (await call()).body
  } catch (error) {
    if (!(error instanceof PublishFailure) || error.options.code !== 'REVOKED_ACCESS_TOKEN') throw error
    await ctx.deps.sleep(REVOKED_RETRY_DELAY_MS)
    return (await call()).body
  }
}

export const memberProfile = (info: Record<string, unknown>): Profile => {
  const sub = str(info.sub)
  if (!sub) throw new PublishFailure('auth_expired', 'LinkedIn did not say who the member is')
  const name =
    str(info.name) ?? ([str(info.given_name), str(info.family_name)].filter(Boolean).join(' ') || sub)
  return {
    profileId: sub,
    username: name,
    name,
    isOrganization: false,
    ...(str(info.picture) ? { avatarUrl: info.picture as string } : {}),
  }
}

/** Ids of the pages the member administers or content-administers, every page of results, both field names. */
export async function administeredOrganizations(ctx: LinkedInContext, token: string): Promise<string[]> {
  const ids: string[] = []
  for (const role of ADMIN_ROLES) {
    for (let start = 0; ; start += ACL_PAGE_SIZE) {
      const { body } = await linkedinCall(ctx, {
        method: 'GET',
        path: '/rest/organizationAcls',
        query: [
          ['q', 'roleAssignee'],
          ['role', role],
          ['state', 'APPROVED'],
          ['start', String(start)],
          ['count', String(ACL_PAGE_SIZE)],
        ],
        token,
        what: 'the pages you administer',
      })
      const elements = Array.isArray(body.elements) ? (body.elements as Record<string, unknown>[]) : []
      for (const element of elements) {
        const target = str(element.organization) ?? str(element.organizationalTarget)
        const id = target ? /^urn:li:organization:(\d+)$/.exec(target)?.[1] : undefined
        if (id && !ids.includes(id)) ids.push(id)
      }
      const total = num((body.paging as Record<string, unknown> | undefined)?.total)
      if (elements.length < ACL_PAGE_SIZE || (total !== undefined && start + ACL_PAGE_SIZE >= total)) break
    }
  }
  return ids
}

/** Page names and vanity names by BATCH_GET (`ids=List(…)`), 50 at a time. */
export async function organizationProfiles(
  ctx: LinkedInContext,
  token: string,
  ids: string[],
): Promise<Profile[]> {
  const out: Profile[] = []
  for (let i = 0; i < ids.length; i += 50) {
    const batch = ids.slice(i, i + 50)
    const { body } = await linkedinCall(ctx, {
      method: 'GET',
      path: '/rest/organizations',
      query: [['ids', `List(${batch.join(',')})`]],
      token,
      what: 'the pages',
    })
    const results = (body.results ?? {}) as Record<string, Record<string, unknown>>
    for (const id of batch) {
      const page = results[id] ?? {}
      const name = str(page.localizedName) ?? id
      out.push({ profileId: id, username: str(page.vanityName) ?? name, name, isOrganization: true })
    }
  }
  return out
}

export function createLinkedInOAuth(ctx: LinkedInContext): OAuthFlow {
  const { settings } = ctx
  const scopes = linkedinScopes(settings)
  const secret = settings.clientSecret ?? ''
  return {
    scopes,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(settings.authorizeUrl)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('client_id', settings.clientId)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('state', state)
      url.searchParams.set('scope', scopes.join(' '))
      return url.toString()
    },
    async exchangeCode({ code, redirectUri }) {
      const answer = await tokenRequest(
        ctx,
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: settings.clientId,
          client_secret: secret,
        },
        'the code exchange',
      )
      const credentials = tokenCredentials(answer, ctx.deps.now())
      const granted = (str(answer.scope) ?? '').split(/[\s,]+/).filter(Boolean)
      return { credentials, grantedScopes: granted }
    },
    async listProfiles(credentials) {
      const member = memberProfile(await readUserinfo(ctx, credentials.accessToken))
      const profiles: GrantProfile[] = [
        {
          network: 'linkedin',
          profile: member,
          credentials: withAuthor(credentials, member),
          kind: 'Personal profile',
        },
      ]
      if (!settings.communityManagement) return profiles
      const pages = await organizationProfiles(
        ctx,
        credentials.accessToken,
        await administeredOrganizations(ctx, credentials.accessToken),
      )
      for (const page of pages)
        profiles.push({
          network: 'linkedin',
          profile: page,
          credentials: withAuthor(credentials, page),
          kind: 'Page',
        })
      return profiles
    },
  }
}

/** The author URN a profile posts as. */
export const authorOf = (profile: Pick<Profile, 'profileId' | 'isOrganization'>) =>
  profile.isOrganization ? `urn:li:organization:${profile.profileId}` : `urn:li:person:${profile.profileId}`

const withAuthor = (credentials: Credentials, profile: Profile): Credentials => ({
  ...credentials,
  extra: { ...(credentials.extra ?? {}), author: authorOf(profile) },
})

export const hasOrganizationScopes = (granted: string[]) =>
  ORGANIZATION_SCOPES.every((s) => granted.includes(s))
export { enc }
