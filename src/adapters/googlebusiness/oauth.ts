import {
  type AdapterDeps,
  type Credentials,
  type GrantProfile,
  type OAuthFlow,
  type Profile,
  PublishFailure,
} from '../adapter.js'
import { exchangeCode, refreshCredentials } from '../youtube/auth.js'
import { callGoogle, listAll, str } from './api.js'
import {
  BUSINESS_SCOPE,
  GOOGLE_BUSINESS_SCOPES,
  type GoogleBusinessContext,
  type GoogleBusinessSettings,
  LEGACY_BUSINESS_SCOPE,
} from './settings.js'

/**
 * Google OAuth with the Business Profile scope (the same flow as YouTube's, with the network's own app):
 * offline access and forced consent, so a refresh token always comes back; PKCE S256. One grant reaches
 * every location of every account the Google user manages; each location is a profile of its own on the
 * choose-profiles page, and its connection keeps the account that reached it (local posts live under
 * `accounts/{a}/locations/{l}` on the v4 API).
 */

const LOCATION_FIELDS = 'name,title,storefrontAddress,metadata'

export function createGoogleBusinessLogin(ctx: GoogleBusinessContext): OAuthFlow {
  const { settings, deps } = ctx
  return {
    scopes: GOOGLE_BUSINESS_SCOPES,
    authorizeUrl: (input) => authorizeUrl(settings, input),
    async exchangeCode(input) {
      const exchanged = await exchangeCode(settings, deps, input)
      // The legacy scope authorises every call Herald makes: a grant reported with it is complete.
      const grantedScopes = exchanged.grantedScopes.map((scope) =>
        scope === LEGACY_BUSINESS_SCOPE ? BUSINESS_SCOPE : scope,
      )
      return { credentials: exchanged.credentials, grantedScopes }
    },
    listProfiles: (credentials) => listLocations(ctx, credentials),
  }
}

function authorizeUrl(
  settings: GoogleBusinessSettings,
  input: { state: string; codeChallenge: string; redirectUri: string },
): string {
  const url = new URL(settings.authorizeUrl)
  const params = {
    client_id: settings.clientId ?? '',
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: GOOGLE_BUSINESS_SCOPES.join(' '),
    access_type: 'offline',
    prompt: 'consent',
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  }
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return url.toString()
}

/** A fresh access token; Google keeps the refresh token (a new one, when sent, replaces it). */
export const refreshGoogleBusiness = (
  settings: GoogleBusinessSettings,
  deps: AdapterDeps,
  credentials: Credentials,
): Promise<Credentials> => refreshCredentials(settings, deps, credentials)

/** Every location the grant reaches, through each account it manages, once each. */
async function listLocations(ctx: GoogleBusinessContext, credentials: Credentials): Promise<GrantProfile[]> {
  if (!credentials.refreshToken)
    throw new PublishFailure(
      'invalid_content',
      'Google returned no refresh token, so Herald could not publish later; connect again',
    )
  const token = credentials.accessToken
  const accounts = await listAll(
    ctx,
    {
      method: 'GET',
      base: ctx.settings.accountsUrl,
      path: '/v1/accounts',
      query: { pageSize: '20' },
      token,
      what: 'your Business Profile accounts',
    },
    'accounts',
  )
  const seen = new Set<string>()
  const profiles: GrantProfile[] = []
  for (const account of accounts) {
    const accountName = str(account.name)
    if (!accountName) continue
    const locations = await listAll(
      ctx,
      {
        method: 'GET',
        base: ctx.settings.locationsUrl,
        path: `/v1/${accountName}/locations`,
        query: { readMask: LOCATION_FIELDS, pageSize: '100' },
        token,
        what: `the locations of ${str(account.accountName) ?? accountName}`,
      },
      'locations',
    )
    for (const location of locations) {
      const name = str(location.name)
      if (!name || seen.has(name)) continue
      seen.add(name)
      profiles.push(grantProfile(credentials, accountName, location))
    }
  }
  return profiles
}

function grantProfile(
  credentials: Credentials,
  account: string,
  location: Record<string, unknown>,
): GrantProfile {
  const name = location.name as string
  const title = str(location.title) ?? name
  const metadata = (location.metadata ?? {}) as Record<string, unknown>
  const where = addressLine(location.storefrontAddress)
  // Google only shows the posts of a verified location (one with "Voice of Merchant").
  const unverified =
    metadata.hasVoiceOfMerchant === false ? ' (not verified yet: Google shows its posts once it is)' : ''
  return {
    network: 'googlebusiness',
    profile: { profileId: name, username: handleOf(title), name: title, isOrganization: true },
    credentials: { ...credentials, extra: { ...credentials.extra, account, location: name } },
    kind: `location${where ? `, ${where}` : ''}${unverified}`,
  }
}

/**
 * Google gives a location no handle; Herald names it by its title in lower case with dashes
 * (`corner-bakery-high-street`), which reads as a handle wherever the dashboard shows one.
 */
export const handleOf = (title: string): string =>
  title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'location'

/** A storefront address on one line: its street lines and its town. */
function addressLine(address: unknown): string {
  if (typeof address !== 'object' || address === null) return ''
  const a = address as { addressLines?: unknown; locality?: unknown }
  const lines = Array.isArray(a.addressLines) ? a.addressLines.filter((l) => typeof l === 'string') : []
  return [...lines, ...(typeof a.locality === 'string' ? [a.locality] : [])].join(', ')
}

/** The location a connection's credentials name, read back (its title may have changed). */
export async function resolveLocation(
  ctx: GoogleBusinessContext,
  credentials: Credentials,
): Promise<Profile> {
  const location = credentials.extra?.location
  if (!location)
    throw new PublishFailure(
      'invalid_content',
      'Choose the Google Business Profile locations to connect on the choose-profiles page',
    )
  const read = await callGoogle(ctx, {
    method: 'GET',
    base: ctx.settings.locationsUrl,
    path: `/v1/${location}`,
    query: { readMask: 'name,title' },
    token: credentials.accessToken,
    what: 'the location',
  })
  const title = str(read.title) ?? location
  return { profileId: location, username: handleOf(title), name: title, isOrganization: true }
}
