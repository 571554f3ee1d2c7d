import type { Credentials, GrantProfile, NetworkAdapter, Profile } from '../../adapters/adapter.js'
import { PublishFailure } from '../../adapters/adapter.js'
import { callbackUrl } from '../../adapters/apps.js'
import { canLogin } from '../../adapters/registry.js'
import { READONLY_SCOPE, UPLOAD_SCOPE, youtubeGrantProblem } from '../../adapters/youtube/index.js'
import type { Network } from '../../core/networks.js'
import { networkLabels } from '../../core/networks.js'
import { consumeState, issueState, type StateRefusal } from '../../platform/crypto/state-tokens.js'
import { connectionCredentials } from '../../platform/crypto/vault.js'
import { findMembership } from '../../platform/db/statements/accounts.js'
import { upsertConnection } from '../../platform/db/statements/connections.js'
import type { AppContext } from '../app-context.js'
import { keepAvatar } from './avatars.js'
import { holdGrant } from './choose-profiles.js'

/**
 * The connect flow shared by every network, independent of HTTP: start (authorize URL with a signed,
 * single-use state and a PKCE S256 challenge), finish (state, consent, code exchange, granted scopes,
 * profile, encrypted storage), and Bluesky's app-password variant. Routes render what these return.
 */

export interface Connector {
  userId: string
  workspaceId: string
}

export interface Refusal {
  kind: 'refused'
  /** HTTP status of the page that explains it. */
  status: number
  title: string
  message: string
}

export type ConnectOutcome =
  | { kind: 'connected'; connectionId: string; network: Network; profile: Profile; scopes: string[] }
  /** The grant reaches several profiles: the person chooses on the choose-profiles page. */
  | { kind: 'choose'; network: Network; grantId: string }
  | Refusal

export const refused = (status: number, title: string, message: string): Refusal => ({
  kind: 'refused',
  status,
  title,
  message,
})

export const NOTHING = 'Nothing was connected.'
export const AGAIN = 'Start again from the channels page.'

export const stateMessages: Record<StateRefusal, { title: string; message: string }> = {
  missing: {
    title: 'Connection link incomplete',
    message: `The network sent no state back, so this answer cannot be matched to a connection you started. ${NOTHING} ${AGAIN}`,
  },
  forged: {
    title: 'Connection link not valid',
    message: `The state in this link was not issued by this Herald or was altered, so it was refused. ${NOTHING} ${AGAIN}`,
  },
  replayed: {
    title: 'Connection link already used',
    message: `This link was already used; each connection link works once. ${NOTHING} more was connected. ${AGAIN}`,
  },
  expired: {
    title: 'Connection link expired',
    message: `This link expired: a connection must be completed within 10 minutes of starting it. ${NOTHING} ${AGAIN}`,
  },
  wrong_user: {
    title: 'Connection started by someone else',
    message: `This link was started by a different signed-in person than you, so it was refused. ${NOTHING} ${AGAIN}`,
  },
}

/** Removes secrets that a network error message might echo (codes, verifiers, tokens). */
function scrub(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message
  for (const secret of secrets) if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]')
  return out
}

function failurePage(
  network: Network,
  step: string,
  error: unknown,
  secrets: readonly (string | undefined)[],
) {
  const label = networkLabels[network]
  if (error instanceof PublishFailure) {
    const status = error.kind === 'transient' || error.kind === 'rate_limited' ? 502 : 400
    return refused(
      status,
      `${label} connection failed`,
      `${label} ${step}: ${scrub(error.message, secrets)}. ${NOTHING}`,
    )
  }
  return refused(
    502,
    `${label} connection failed`,
    `Herald could not complete ${step} with ${label}. ${NOTHING} Try again.`,
  )
}

/** Why a network without an app cannot be connected, in the words of the person connecting. */
export const notSetUpMessage = (network: Network) =>
  `${networkLabels[network]} is not set up on this Herald yet: it needs a ${networkLabels[network]} developer app, which the person who runs this Herald adds on the network apps page.`

/**
 * Checks that the flow can run for this network, with the app in force now (read again first: another
 * process may have changed it); a refusal page otherwise.
 */
async function oauthAdapter(app: AppContext, network: Network): Promise<NetworkAdapter | Refusal> {
  await app.networkApps.refresh()
  const adapter = app.adapters[network]
  if (!app.networkApps.canConnect(network))
    return refused(404, `${networkLabels[network]} is not set up`, `${notSetUpMessage(network)} ${NOTHING}`)
  if (!adapter?.oauth)
    return refused(
      404,
      `${networkLabels[network]} cannot be connected`,
      `${networkLabels[network]} has no OAuth connect flow.`,
    )
  return adapter
}

/** Step 1: the authorize URL to send the browser to. */
export async function startConnect(
  app: AppContext,
  who: Connector,
  network: Network,
): Promise<{ kind: 'redirect'; url: string } | Refusal> {
  const adapter = await oauthAdapter(app, network)
  if ('kind' in adapter) return adapter
  const redirectUri = callbackUrl(app.config, network)
  const { state, codeChallenge } = await issueState(
    { db: app.store.db, vault: app.vault, signer: app.signer, now: () => app.clock.now() },
    { workspaceId: who.workspaceId, userId: who.userId, platform: network, redirectUri },
  )
  return { kind: 'redirect', url: adapter.oauth!.authorizeUrl({ state, codeChallenge, redirectUri }) }
}

/** The scopes a grant lacks, as a sentence for the refusal page; undefined when the grant is complete. */
function grantProblem(
  network: Network,
  adapter: NetworkAdapter,
  granted: string[],
  credentials: Credentials,
): string | undefined {
  if (network === 'youtube') {
    // Google may report a broader scope that also authorises uploads; the adapter knows which.
    const problem = youtubeGrantProblem(granted, credentials)
    if (!problem) return undefined
    const scope =
      problem.reason === 'uploadScopeMissing'
        ? ` Missing scope: ${UPLOAD_SCOPE}.`
        : problem.reason === 'readScopeMissing'
          ? ` Missing scope: ${READONLY_SCOPE}.`
          : ''
    return `${problem.message}.${scope}`
  }
  const missing = (adapter.oauth?.scopes ?? []).filter((scope) => !granted.includes(scope))
  if (missing.length === 0) return undefined
  return `${networkLabels[network]} did not grant every permission Herald needs. Missing: ${missing.join(', ')}. Connect again and leave every permission ticked.`
}

/** Stores a connection: credentials sealed by the vault, never in plaintext. */
export async function storeConnection(
  app: AppContext,
  who: Connector,
  network: Network,
  credentials: Credentials,
  profile: Profile,
  scopes: string[],
): Promise<ConnectOutcome> {
  const connectionId = await upsertConnection(
    app.store.db,
    {
      workspaceId: who.workspaceId,
      platform: network,
      profileId: profile.profileId,
      username: profile.username,
      name: profile.name,
      isOrganization: profile.isOrganization,
      avatarUrl: profile.avatarUrl ?? null,
      sealCredentials: (id) => app.vault.sealJson(connectionCredentials(id), credentials),
      scopes,
      tokenExpiresAt: credentials.expiresAt ?? null,
    },
    app.clock.now(),
  )
  await keepAvatar(app, {
    id: connectionId,
    workspaceId: who.workspaceId,
    network,
    avatarUrl: profile.avatarUrl,
  })
  app.logger.info(
    {
      subsystem: 'connect',
      network,
      profileId: profile.profileId,
      workspaceId: who.workspaceId,
      connectionId,
    },
    'profile connected',
  )
  return { kind: 'connected', connectionId, network, profile, scopes }
}

/**
 * Step 2, the callback: the state (signature, single use, expiry, same person), the network's answer
 * (consent denied, an error, a code), the code exchange with the PKCE verifier, the granted scopes, the
 * profile, and the encrypted connection. `who` undefined means nobody is signed in.
 */
export async function finishConnect(
  app: AppContext,
  who: Connector | undefined,
  network: Network,
  query: Record<string, string | undefined>,
): Promise<ConnectOutcome> {
  const label = networkLabels[network]
  if (!who) {
    return refused(
      401,
      'Not signed in',
      `You are not signed in to Herald, so this ${label} answer cannot be matched to a connection you started. ${NOTHING} Sign in and start again from the channels page.`,
    )
  }
  const adapter = await oauthAdapter(app, network)
  if ('kind' in adapter) return adapter
  const state = await consumeState(
    { db: app.store.db, vault: app.vault, signer: app.signer, now: () => app.clock.now() },
    { state: query.state, platform: network, userId: who.userId },
  )
  if (!state.ok) return refused(400, stateMessages[state.reason].title, stateMessages[state.reason].message)
  const connector = { userId: who.userId, workspaceId: state.row.workspace_id }
  // The person may have left (or been removed from) the workspace since the flow began.
  if (!(await findMembership(app.store.db, connector.workspaceId, who.userId)))
    return refused(
      403,
      'Not a member',
      `You are no longer a member of the workspace this connection was started in. ${NOTHING}`,
    )

  const declined = refusalInAnswer(label, query)
  if (declined) return declined
  const code = query.code as string

  const secrets = [code, state.codeVerifier]
  let exchanged: { credentials: Credentials; grantedScopes: string[] }
  try {
    exchanged = await adapter.oauth!.exchangeCode({
      code,
      codeVerifier: state.codeVerifier,
      redirectUri: state.row.redirect_uri,
    })
  } catch (error) {
    app.logger.warn(
      { subsystem: 'connect', network, kind: (error as PublishFailure).kind },
      'code exchange failed',
    )
    return failurePage(network, 'refused the authorization code', error, secrets)
  }
  const { credentials, grantedScopes } = exchanged
  const problem = grantProblem(network, adapter, grantedScopes, credentials)
  if (problem) return refused(400, 'Permission missing', `${problem} ${NOTHING}`)
  const granted = {
    credentials,
    grantedScopes,
    tokenSecrets: [...secrets, credentials.accessToken, credentials.refreshToken],
  }
  return adapter.oauth!.listProfiles
    ? holdGrantForChoice(app, connector, adapter, network, granted)
    : connectTheProfile(app, connector, adapter, network, granted)
}

/** The network's answer when it carries no code: consent declined, an error, or nothing at all. */
export function refusalInAnswer(
  label: string,
  query: Record<string, string | undefined>,
): Refusal | undefined {
  if (query.error === 'access_denied') {
    return refused(
      400,
      'Access declined',
      `You declined to give Herald access on ${label}. ${NOTHING} You can connect again from the channels page.`,
    )
  }
  if (query.error) {
    const description = query.error_description ? ` (${query.error_description.slice(0, 300)})` : ''
    return refused(
      400,
      `${label} refused the connection`,
      `${label} answered with the error "${query.error.slice(0, 100)}"${description}. ${NOTHING}`,
    )
  }
  if (!query.code)
    return refused(
      400,
      `${label} sent no code`,
      `${label} came back without an authorization code. ${NOTHING} ${AGAIN}`,
    )
  return undefined
}

/** What the code exchange gave, with every secret a failure page must scrub. */
interface Grant {
  credentials: Credentials
  grantedScopes: string[]
  tokenSecrets: Array<string | undefined>
}

/** A grant that reaches several profiles is held while the person chooses among them. */
async function holdGrantForChoice(
  app: AppContext,
  connector: Connector,
  adapter: NetworkAdapter,
  network: Network,
  { credentials, grantedScopes, tokenSecrets }: Grant,
): Promise<ConnectOutcome> {
  const label = networkLabels[network]
  let profiles: GrantProfile[]
  try {
    profiles = await adapter.oauth!.listProfiles!(credentials)
  } catch (error) {
    return failurePage(network, 'did not list the profiles', error, tokenSecrets)
  }
  if (profiles.length === 0)
    return refused(
      400,
      `No ${label} profile to connect`,
      `This ${label} account gives Herald no profile it can publish to. ${NOTHING}`,
    )
  const grantId = await holdGrant(app, {
    userId: connector.userId,
    workspaceId: connector.workspaceId,
    network,
    profiles,
    scopes: grantedScopes,
  })
  return { kind: 'choose', network, grantId }
}

/** A grant for one profile: the profile is read and the connection stored. */
async function connectTheProfile(
  app: AppContext,
  connector: Connector,
  adapter: NetworkAdapter,
  network: Network,
  { credentials, grantedScopes, tokenSecrets }: Grant,
): Promise<ConnectOutcome> {
  let profile: Profile
  try {
    profile = await adapter.resolveProfile(credentials)
  } catch (error) {
    if (error instanceof PublishFailure && error.kind === 'invalid_content')
      return refused(
        400,
        `${networkLabels[network]} account refused`,
        `${scrub(error.message, tokenSecrets)}. ${NOTHING}`,
      )
    return failurePage(network, 'did not return the profile', error, tokenSecrets)
  }
  return storeConnection(app, connector, network, credentials, profile, grantedScopes)
}

/** Bluesky: a handle and an app password instead of OAuth. The app password is used once and never stored. */
export async function connectWithAppPassword(
  app: AppContext,
  who: Connector,
  input: { identifier: string; appPassword: string },
): Promise<ConnectOutcome> {
  const adapter = app.adapters.bluesky
  if (!canLogin(adapter))
    return refused(404, 'Bluesky cannot be connected', 'This Herald has no Bluesky adapter.')
  if (!input.identifier.trim() || !input.appPassword)
    return refused(
      400,
      'Bluesky details missing',
      'Enter the handle and an app password. Nothing was connected.',
    )
  try {
    const { credentials, profile } = await adapter.login(input)
    return storeConnection(app, who, 'bluesky', credentials, profile, [])
  } catch (error) {
    if (error instanceof PublishFailure && error.kind === 'auth_expired')
      return refused(
        400,
        'Bluesky sign-in refused',
        `Bluesky refused that handle and app password. ${NOTHING} Check them and try again.`,
      )
    // The PDS is a host the person typed or a DID document named: its own words are not repeated here,
    // only Herald's reading of them (and the error code), so a hostile server cannot write this page.
    if (error instanceof PublishFailure)
      return refused(
        error.kind === 'transient' || error.kind === 'rate_limited' ? 502 : 400,
        'Bluesky connection failed',
        `${blueskyReason(error)} ${NOTHING}`,
      )
    return failurePage('bluesky', 'refused the sign-in', error, [input.appPassword])
  }
}

/** What went wrong connecting Bluesky, in Herald's words: the code, never the server's free text. */
function blueskyReason(error: PublishFailure): string {
  const code = error.options.code ? ` (${String(error.options.code).slice(0, 60)})` : ''
  switch (error.options.code) {
    case 'PdsNotPublic':
      return "Herald only connects to Bluesky PDSes on public https addresses, and this account's is not one."
    case 'HandleNotFound':
      return 'That Bluesky handle could not be resolved.'
    case 'UnsupportedDid':
    case 'NoPds':
      return `The account's DID document does not name a Bluesky PDS Herald can use${code}.`
  }
  if (error.kind === 'transient' || error.kind === 'rate_limited')
    return `Bluesky could not be reached just now${code}; try again in a moment.`
  return `Bluesky refused the sign-in${code}.`
}
