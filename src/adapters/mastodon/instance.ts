import { defaultInstanceLimits, type InstanceLimits } from '../../core/mastodon-options.js'
import { PublishFailure } from '../adapter.js'
import type { MastodonClient } from './client.js'
import { IDEMPOTENCY_WINDOW_MS } from './settings.js'

/**
 * What Herald learns about an instance before connecting to it (methods/instance, methods/oauth): its
 * name and version, the limits of a status and its media (`configuration`), where its OAuth endpoints are
 * (`/.well-known/oauth-authorization-server` from 4.3; `/oauth/authorize` and `/oauth/token` before),
 * whether it takes PKCE, and how long it remembers an `Idempotency-Key`.
 */

export interface InstanceMediaLimits {
  imageSizeLimit: number
  videoSizeLimit: number
  /** Characters of alt text. */
  descriptionLimit: number
  supportedMimeTypes: string[]
}

export interface InstanceInfo {
  host: string
  title: string
  version: string
  /** `api_versions.mastodon` (4.3 and later); 0 when the instance does not say. */
  apiVersion: number
  limits: InstanceLimits
  media: InstanceMediaLimits
  /** Paths under the instance's base URL. */
  authorizePath: string
  tokenPath: string
  revokePath: string
  /** The instance takes a PKCE S256 challenge (it says so in its authorization server metadata). */
  pkce: boolean
  /**
   * How long the instance remembers an `Idempotency-Key` (ms); 0 where Herald does not rely on it (a server
   * that only speaks Mastodon's API, such as Pleroma, Akkoma or GoToSocial, says `compatible` in its version).
   */
  idempotencyWindowMs: number
}

const defaultMediaLimits: InstanceMediaLimits = {
  imageSizeLimit: 16 * 1024 * 1024,
  videoSizeLimit: 103_809_024,
  descriptionLimit: 1_500,
  supportedMimeTypes: [],
}

/**
 * The host an address names, as Herald stores it (lower case, IDN as punycode, a port kept), or undefined
 * when it is not one: `mastodon.social`, `https://mastodon.social/`, `@alice@mastodon.social` and
 * `alice@mastodon.social` all name `mastodon.social`. Paths, queries, user info and fragments are refused.
 */
export function instanceHost(input: string): string | undefined {
  let text = input.trim()
  if (text === '' || text.length > 300) return undefined
  const handle = /^@?[^@\s/:]+@([^@\s/]+)$/.exec(text)
  if (handle) text = handle[1] as string
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `https://${text}`
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    return undefined
  const host = url.host.toLowerCase()
  const name = url.hostname.toLowerCase()
  const labels = name.split('.')
  const validName =
    name.length <= 253 &&
    labels.every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label)) &&
    (labels.length >= 2 || name === 'localhost')
  return validName || /^\[[0-9a-f:.]+\]$/.test(name) ? host : undefined
}

const positive = (value: unknown, fallback: number) =>
  typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : fallback

interface InstanceV2 {
  domain?: unknown
  title?: unknown
  version?: unknown
  api_versions?: { mastodon?: unknown }
  configuration?: {
    statuses?: {
      max_characters?: unknown
      max_media_attachments?: unknown
      characters_reserved_per_url?: unknown
    }
    media_attachments?: {
      image_size_limit?: unknown
      video_size_limit?: unknown
      description_limit?: unknown
      supported_mime_types?: unknown
    }
  }
  /** v1 only, on some forks. */
  max_toot_chars?: unknown
}

/** Only Mastodon itself is relied on to remember idempotency keys for the documented hour. */
export const remembersKeys = (version: string) => /^\d+\.\d+/.test(version) && !/compatible/i.test(version)

function readInstance(
  host: string,
  doc: InstanceV2,
): Omit<InstanceInfo, 'authorizePath' | 'tokenPath' | 'revokePath' | 'pkce'> {
  const statuses = doc.configuration?.statuses ?? {}
  const media = doc.configuration?.media_attachments ?? {}
  const version = typeof doc.version === 'string' ? doc.version.slice(0, 100) : ''
  return {
    host,
    title: typeof doc.title === 'string' && doc.title.trim() ? doc.title.trim().slice(0, 100) : host,
    version,
    apiVersion: positive(doc.api_versions?.mastodon, 0),
    limits: {
      textLimit: positive(statuses.max_characters ?? doc.max_toot_chars, defaultInstanceLimits.textLimit),
      maxMedia: positive(statuses.max_media_attachments, defaultInstanceLimits.maxMedia),
      urlWeight: positive(statuses.characters_reserved_per_url, defaultInstanceLimits.urlWeight),
    },
    media: {
      imageSizeLimit: positive(media.image_size_limit, defaultMediaLimits.imageSizeLimit),
      videoSizeLimit: positive(media.video_size_limit, defaultMediaLimits.videoSizeLimit),
      descriptionLimit: positive(media.description_limit, defaultMediaLimits.descriptionLimit),
      supportedMimeTypes: Array.isArray(media.supported_mime_types)
        ? media.supported_mime_types.filter((t): t is string => typeof t === 'string').slice(0, 200)
        : [],
    },
    idempotencyWindowMs: remembersKeys(version) ? IDEMPOTENCY_WINDOW_MS : 0,
  }
}

/** The instance document: `/api/v2/instance`, or `/api/v1/instance` on a server that has no v2. */
async function instanceDocument(client: MastodonClient, host: string, signal?: AbortSignal) {
  try {
    return (
      await client.call<InstanceV2>({
        host,
        method: 'GET',
        path: '/api/v2/instance',
        signal,
        what: 'describing itself',
      })
    ).body
  } catch (error) {
    if (!(error instanceof PublishFailure && (error.options.status === 404 || error.options.status === 410)))
      throw error
  }
  return (
    await client.call<InstanceV2>({
      host,
      method: 'GET',
      path: '/api/v1/instance',
      signal,
      what: 'describing itself',
    })
  ).body
}

interface ServerMetadata {
  authorization_endpoint?: unknown
  token_endpoint?: unknown
  revocation_endpoint?: unknown
  code_challenge_methods_supported?: unknown
}

/**
 * The OAuth endpoints as paths of the instance itself: an endpoint on another host is refused, since the
 * token exchange carries the app's secret and the authorize page is where the person signs in.
 */
function endpointPath(host: string, base: string, value: unknown, fallback: string): string {
  if (typeof value !== 'string') return fallback
  if (!value.startsWith(`${base}/`))
    throw new PublishFailure(
      'invalid_content',
      `${host} names OAuth endpoints on another host (${quotedHost(value)})`,
      { code: 'ForeignEndpoint' },
    )
  return value.slice(base.length)
}

const quotedHost = (value: string) => {
  try {
    return new URL(value).host.slice(0, 100)
  } catch {
    return 'an address that is not one'
  }
}

/** Reads what Herald needs of an instance; a {@link PublishFailure} when it is not a Mastodon server. */
export async function discoverInstance(
  client: MastodonClient,
  host: string,
  signal?: AbortSignal,
): Promise<InstanceInfo> {
  const doc = await instanceDocument(client, host, signal)
  if (typeof doc !== 'object' || doc === null || typeof doc.version !== 'string')
    throw new PublishFailure(
      'invalid_content',
      `${host} does not describe itself as a Mastodon server does`,
      {
        code: 'NotMastodon',
      },
    )
  const base = client.baseUrl(host)
  let metadata: ServerMetadata = {}
  try {
    metadata =
      (
        await client.call<ServerMetadata>({
          host,
          method: 'GET',
          path: '/.well-known/oauth-authorization-server',
          signal,
          what: 'naming its OAuth endpoints',
        })
      ).body ?? {}
  } catch (error) {
    // Before 4.3 there is no metadata: the endpoints are at their usual paths and PKCE is not offered.
    if (!(error instanceof PublishFailure && error.options.status === 404)) throw error
  }
  const methods = metadata.code_challenge_methods_supported
  return {
    ...readInstance(host, doc),
    authorizePath: endpointPath(host, base, metadata.authorization_endpoint, '/oauth/authorize'),
    tokenPath: endpointPath(host, base, metadata.token_endpoint, '/oauth/token'),
    revokePath: endpointPath(host, base, metadata.revocation_endpoint, '/oauth/revoke'),
    pkce: Array.isArray(methods) && methods.includes('S256'),
  }
}
