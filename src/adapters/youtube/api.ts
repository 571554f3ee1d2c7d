import { type AdapterDeps, type Credentials, type Profile, PublishFailure } from '../adapter.js'
import { withTimeout, YouTubeConnectRefused, type YouTubeSettings } from './auth.js'
import { classifyGoogleError } from './errors.js'

/** Read calls to the YouTube Data API v3 (channels.list, videos.list, commentThreads.list), each costing 1 quota unit. */

export interface ApiContext {
  settings: YouTubeSettings
  deps: AdapterDeps
}

/** GET `{apiUrl}/youtube/v3/<resource>?...` with the bearer token; Google errors become PublishFailures. */
export async function getJson(
  ctx: ApiContext,
  resource: 'channels' | 'videos' | 'commentThreads',
  params: Record<string, string>,
  accessToken: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const url = new URL(`${ctx.settings.apiUrl}/youtube/v3/${resource}`)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  let response: Response
  try {
    response = await ctx.deps.http(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: withTimeout(signal, 30_000),
    })
  } catch (error) {
    throw new PublishFailure('transient', `Could not reach YouTube: ${(error as Error).message}`)
  }
  const body = await response.json().catch(() => undefined)
  if (!response.ok)
    throw classifyGoogleError(response.status, body, {
      now: ctx.deps.now(),
      retryAfter: response.headers.get('retry-after'),
    })
  if (typeof body !== 'object' || body === null)
    throw new PublishFailure('transient', `YouTube answered ${resource}.list with no JSON body`)
  return body as Record<string, unknown>
}

/** The first item of a list response, or undefined when `items` is empty or absent. */
export function firstItem(list: Record<string, unknown>): Record<string, unknown> | undefined {
  const items = list.items
  if (!Array.isArray(items)) return undefined
  const item = items[0]
  return typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {}

/**
 * The channel these credentials own (spec §5 step 3): `channels.list?part=snippet&mine=true`. The channel
 * id is the profile id, the handle (`snippet.customUrl`) the username, the title the name, the largest
 * thumbnail the avatar; a channel is an organisation-like profile. An account without a channel is refused
 * with {@link YouTubeConnectRefused} (`noChannel`).
 */
export async function resolveChannel(ctx: ApiContext, credentials: Credentials): Promise<Profile> {
  const list = await getJson(ctx, 'channels', { part: 'snippet', mine: 'true' }, credentials.accessToken)
  const channel = firstItem(list)
  if (!channel || typeof channel.id !== 'string') throw new YouTubeConnectRefused('noChannel')
  const snippet = record(channel.snippet)
  const title = typeof snippet.title === 'string' ? snippet.title : channel.id
  const handle = typeof snippet.customUrl === 'string' && snippet.customUrl ? snippet.customUrl : title
  const thumbnails = record(snippet.thumbnails)
  const avatar = ['high', 'medium', 'default']
    .map((size) => record(thumbnails[size]).url)
    .find((url): url is string => typeof url === 'string')
  return {
    profileId: channel.id,
    username: handle,
    name: title,
    isOrganization: true,
    ...(avatar ? { avatarUrl: avatar } : {}),
  }
}
