import type { AdapterDeps, Credentials, GrantProfile, OAuthFlow, Profile } from '../adapter.js'
import { PublishFailure } from '../adapter.js'
import { isMissingPermission } from './errors.js'
import { callGraph, type GraphClient, readAllPages } from './graph.js'
import { facebookGraph, type MetaSettings } from './settings.js'

/**
 * Facebook Login (reference B.2, B.3, C.1): the dialog at `{dialogUrl}/{version}/dialog/oauth`, the code
 * exchanged for a short-lived user token, that exchanged (`fb_exchange_token`) for a long-lived one, the
 * grant read back from `/me/permissions`, and every Page the user reaches (`/me/accounts`, each page of
 * results, plus the Pages of the user's businesses) with its own Page token and the Instagram
 * professional account linked to it. Each Page and each linked account is one profile on the
 * choose-profiles page.
 */

export const PAGE_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'read_insights',
  'business_management',
  'publish_video',
] as const
export const INSTAGRAM_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_insights',
  // First comments on Instagram posts.
  'instagram_manage_comments',
] as const
export const FACEBOOK_LOGIN_SCOPES = [...PAGE_SCOPES, ...INSTAGRAM_SCOPES] as const

const PAGE_FIELDS =
  'id,name,username,access_token,tasks,picture.type(large){url},instagram_business_account{id,username,name,profile_picture_url}'

type Row = Record<string, unknown>
const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)

export function createFacebookLogin(settings: MetaSettings, deps: AdapterDeps): OAuthFlow {
  const graph = facebookGraph(settings, deps)
  const appSecrets = [settings.appSecret]
  return {
    scopes: FACEBOOK_LOGIN_SCOPES,
    authorizeUrl({ state, codeChallenge, redirectUri }) {
      const url = new URL(`${settings.dialogUrl.replace(/\/+$/, '')}/${settings.version}/dialog/oauth`)
      url.searchParams.set('client_id', settings.appId)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('state', state)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('scope', FACEBOOK_LOGIN_SCOPES.join(','))
      url.searchParams.set('code_challenge', codeChallenge)
      url.searchParams.set('code_challenge_method', 'S256')
      return url.toString()
    },
    async exchangeCode({ code, codeVerifier, redirectUri }) {
      const secrets = [code, codeVerifier, ...appSecrets]
      // POST keeps the code, the verifier and the app secret out of the URL (Meta takes either method).
      const short = await callGraph(graph, {
        method: 'POST',
        path: '/oauth/access_token',
        params: {
          client_id: settings.appId,
          client_secret: settings.appSecret,
          redirect_uri: redirectUri,
          code,
          code_verifier: codeVerifier,
        },
        what: 'the code exchange',
        secrets,
      })
      const shortToken = str(short.access_token)
      if (!shortToken)
        throw new PublishFailure('auth_expired', 'Facebook answered the code exchange without a token')
      const credentials = await longLived(graph, settings, shortToken, deps.now())
      return { credentials, grantedScopes: await grantedPermissions(graph, credentials.accessToken) }
    },
    listProfiles: (credentials) => listGrantProfiles(graph, credentials),
  }
}

/** Short-lived user token → long-lived (about 60 days). */
async function longLived(
  graph: GraphClient,
  settings: MetaSettings,
  token: string,
  now: number,
): Promise<Credentials> {
  const answer = await callGraph(graph, {
    method: 'POST',
    path: '/oauth/access_token',
    params: {
      grant_type: 'fb_exchange_token',
      client_id: settings.appId,
      client_secret: settings.appSecret,
      fb_exchange_token: token,
    },
    what: 'the long-lived token exchange',
    secrets: [token, settings.appSecret],
  })
  const accessToken = str(answer.access_token)
  if (!accessToken)
    throw new PublishFailure('auth_expired', 'Facebook answered the token exchange without a token')
  const expiresIn = typeof answer.expires_in === 'number' ? answer.expires_in : undefined
  return { accessToken, ...(expiresIn ? { expiresAt: now + expiresIn * 1000 } : {}), extra: { kind: 'user' } }
}

/** `/me/permissions`: the scopes whose status is `granted`. */
export async function grantedPermissions(graph: GraphClient, token: string): Promise<string[]> {
  const rows = await readAllPages(graph, {
    method: 'GET',
    path: '/me/permissions',
    token,
    what: 'the granted permissions',
  })
  return rows.filter((r) => r.status === 'granted').map((r) => String(r.permission))
}

/** Every Page of the user (own and through businesses) and each linked Instagram professional account. */
export async function listGrantProfiles(
  graph: GraphClient,
  credentials: Credentials,
): Promise<GrantProfile[]> {
  const token = credentials.accessToken
  const pages = await readAllPages(graph, {
    method: 'GET',
    path: '/me/accounts',
    params: { fields: PAGE_FIELDS, limit: 100 },
    token,
    what: 'the Pages you manage',
  })
  const seen = new Set(pages.map((p) => String(p.id)))
  // Pages shared only through Business Manager are missing from /me/accounts; a grant without
  // business_management simply has none to add.
  const businesses = await readAllPages(graph, {
    method: 'GET',
    path: '/me/businesses',
    params: { fields: 'id,name' },
    token,
    what: 'your businesses',
  }).catch((error: unknown) => {
    if (error instanceof PublishFailure && isMissingPermission(error)) return []
    throw error
  })
  for (const business of businesses) {
    for (const edge of ['owned_pages', 'client_pages']) {
      const more = await readAllPages(graph, {
        method: 'GET',
        path: `/${String(business.id)}/${edge}`,
        params: { fields: PAGE_FIELDS, limit: 100 },
        token,
        what: "your business's Pages",
      })
      for (const page of more)
        if (!seen.has(String(page.id))) {
          seen.add(String(page.id))
          pages.push(page)
        }
    }
  }
  const profiles: GrantProfile[] = []
  for (const page of pages) {
    const pageId = str(page.id)
    const pageToken = str(page.access_token)
    if (!pageId || !pageToken) continue
    const picture = (page.picture as { data?: { url?: unknown } } | undefined)?.data?.url
    const pageProfile: Profile = {
      profileId: pageId,
      username: str(page.username) ?? pageId,
      name: str(page.name) ?? pageId,
      isOrganization: true,
      ...(str(picture) ? { avatarUrl: picture as string } : {}),
    }
    profiles.push({
      network: 'facebook',
      profile: pageProfile,
      credentials: { accessToken: pageToken, extra: { kind: 'page', pageId } },
      kind: 'Page',
    })
    const ig = page.instagram_business_account as Row | undefined
    const igId = ig ? str(ig.id) : undefined
    if (ig && igId)
      profiles.push({
        network: 'instagram',
        profile: {
          profileId: igId,
          username: str(ig.username) ?? igId,
          name: str(ig.name) ?? str(ig.username) ?? igId,
          isOrganization: false,
          ...(str(ig.profile_picture_url) ? { avatarUrl: ig.profile_picture_url as string } : {}),
        },
        credentials: { accessToken: pageToken, extra: { host: 'facebook', pageId, igUserId: igId } },
        kind: `Instagram professional account (linked to ${pageProfile.name})`,
      })
  }
  return profiles
}
