import { randomBytes } from 'node:crypto'
import { type AppNetwork, callbackUrl, resolveApp, type SavedApps } from '../../adapters/apps.js'
import {
  googleBusinessSettings,
  linkedinSettings,
  metaSettings,
  pinterestSettings,
  tiktokSettings,
  twitterSettings,
  youtubeSettings,
} from '../../adapters/registry.js'
import { networkLabels } from '../../core/networks.js'
import type { Config } from '../../platform/config.js'
import { BlockedAddressError, createGuardedHttp } from '../../platform/egress/guarded-http.js'

/**
 * Does the network know this app? Where the network offers a call that tells a wrong client ID or secret
 * from a right one without a person signing in, and without changing anything, Herald makes it:
 * - X, Google (YouTube and Business Profile), LinkedIn and TikTok: their token endpoint, with a made-up refresh token or code. A wrong app is
 *   refused as a client (401, `invalid_client` or `unauthorized_client`); a right one gets past the client
 *   check and is refused only for the made-up grant (400).
 * - Pinterest: its token endpoint, the app as HTTP Basic and a made-up refresh token: a wrong app is
 *   refused (401), a right one only for the grant (400).
 * - Facebook: an app access token (`client_credentials`), which the app may always ask for and Herald
 *   drops unread.
 * Instagram Login and Threads answer a made-up code the same way for a right and a wrong app, so nothing is
 * checked there: the first profile connected is the check. The call goes through the guarded fetcher
 * (https, public addresses only; the simulators' loopback address in sandbox mode), the answer's words are
 * never repeated, and the secret is in no message and no log line.
 */

export type CheckOutcome = 'accepted' | 'refused' | 'unreachable' | 'unclear' | 'not_offered' | 'no_app'

export interface AppCheck {
  outcome: CheckOutcome
  /** A sentence for the administrator, in Herald's words. */
  message: string
  /** The network's HTTP status, when it answered. */
  status?: number
}

const CHECK_TIMEOUT_MS = 10_000

/** Networks where Herald can ask; the rest say so on the page. */
export const checkable = (network: AppNetwork) => network !== 'instagram' && network !== 'threads'

interface Probe {
  url: string
  init: RequestInit
  /** From the answer's status and OAuth `error` code (never its free text). */
  read(status: number, error: string | undefined): 'accepted' | 'refused' | 'unclear'
}

const form = (fields: Record<string, string | undefined>) =>
  new URLSearchParams(
    Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString()

const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }
const REFUSED_CLIENT = new Set(['invalid_client', 'unauthorized_client'])

/** A token endpoint that refuses a wrong client with 401 or an `invalid_client` error before it looks at the grant. */
const tokenEndpoint = (status: number, error: string | undefined) =>
  status === 401 || (error !== undefined && REFUSED_CLIENT.has(error))
    ? 'refused'
    : status === 400
      ? 'accepted'
      : 'unclear'

/** A form posted to a token endpoint, read by {@link tokenEndpoint}. */
const tokenProbe = (
  url: string,
  fields: Record<string, string | undefined>,
  headers: Record<string, string> = FORM,
): Probe => ({
  url,
  init: { method: 'POST', headers, body: form(fields) },
  read: tokenEndpoint,
})

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

function probeFor(config: Config, network: AppNetwork, saved: SavedApps): Probe | undefined {
  const app = resolveApp(config, network, saved)
  if (!app) return undefined
  // Made up, and named as Herald's, so it cannot be a grant anyone holds.
  const madeUp = `herald-check-${randomBytes(16).toString('hex')}`
  const refresh = { grant_type: 'refresh_token', refresh_token: madeUp }
  switch (network) {
    case 'twitter':
      return tokenProbe(
        `${twitterSettings(config, saved).apiUrl}/2/oauth2/token`,
        { ...refresh, client_id: app.clientId },
        app.clientSecret
          ? {
              ...FORM,
              authorization: basic(encodeURIComponent(app.clientId), encodeURIComponent(app.clientSecret)),
            }
          : FORM,
      )
    case 'youtube':
    case 'googlebusiness':
      return tokenProbe(
        (network === 'youtube' ? youtubeSettings(config, saved) : googleBusinessSettings(config, saved))
          .tokenUrl,
        { ...refresh, client_id: app.clientId, client_secret: app.clientSecret },
      )
    case 'linkedin':
      // The authorization-code grant: refresh tokens are only for LinkedIn's approved partners.
      return tokenProbe(linkedinSettings(config, saved).tokenUrl, {
        grant_type: 'authorization_code',
        code: madeUp,
        redirect_uri: callbackUrl(config, 'linkedin'),
        client_id: app.clientId,
        client_secret: app.clientSecret,
      })
    case 'facebook': {
      const meta = metaSettings(config, saved)
      return {
        ...tokenProbe(`${meta.graphUrl}/${meta.version}/oauth/access_token`, {
          grant_type: 'client_credentials',
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }),
        // Meta answers a wrong app id or secret with 400 (an OAuthException); a right one gets its app token.
        read: (status) => (status === 200 ? 'accepted' : status === 400 ? 'refused' : 'unclear'),
      }
    }
    case 'tiktok':
      // TikTok answers the flat OAuth envelope: `invalid_client` for a wrong key or secret.
      return tokenProbe(`${tiktokSettings(config, saved).apiUrl}/v2/oauth/token/`, {
        client_key: app.clientId,
        client_secret: app.clientSecret,
        ...refresh,
      })
    case 'pinterest':
      return tokenProbe(`${pinterestSettings(config, saved).apiUrl}/oauth/token`, refresh, {
        ...FORM,
        authorization: basic(app.clientId, app.clientSecret ?? ''),
      })
    default:
      return undefined
  }
}

const messages = (label: string, network: AppNetwork): Record<CheckOutcome, string> => ({
  accepted: `${label} accepted this app’s client ID${network === 'twitter' ? ' and, when one is set, its secret' : ' and secret'}.`,
  refused: `${label} refused this app: the client ID or the secret is wrong, or the app was deleted. Copy both again from the developer portal.`,
  unreachable: `Herald could not reach ${label} to check the app. Nothing was changed; try again in a moment.`,
  unclear: `${label} answered in a way Herald does not recognise, so the app could not be checked. Connect a profile to try it.`,
  not_offered: `${label} offers no way to check an app without a person signing in. Connecting the first profile is the check.`,
  no_app: `There is no ${label} app to check yet.`,
})

/** Asks the network about the app in force (the environment's, else the saved one, else the simulator's). */
export async function checkApp(config: Config, network: AppNetwork, saved: SavedApps): Promise<AppCheck> {
  const words = messages(networkLabels[network], network)
  if (!checkable(network)) return { outcome: 'not_offered', message: words.not_offered }
  const probe = probeFor(config, network, saved)
  if (!probe) return { outcome: 'no_app', message: words.no_app }
  // Sandbox mode: the simulators answer on this Herald's own (loopback) address.
  const http = createGuardedHttp({ allowPrivate: config.sandbox })
  let response: Response
  try {
    response = await http(probe.url, { ...probe.init, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) })
  } catch (error) {
    const blocked = error instanceof BlockedAddressError
    return {
      outcome: 'unreachable',
      message: blocked
        ? `Herald did not call ${networkLabels[network]}: its address is not a public https address.`
        : words.unreachable,
    }
  }
  const body = (await response.json().catch(() => ({}))) as { error?: unknown }
  const error = typeof body.error === 'string' ? body.error : undefined
  const outcome = probe.read(response.status, error)
  return { outcome, message: words[outcome], status: response.status }
}
