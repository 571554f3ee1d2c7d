import {
  type Credentials,
  emptyPostSummary,
  type PostMetricsReading,
  type Profile,
  type ProfileMetricsReading,
  PublishFailure,
} from '../adapter.js'
import { readAccount, sessionOf } from './account.js'
import type { MastodonClient } from './client.js'

/**
 * Analytics (entities/Status, entities/Account): a status's favourites, boosts and replies, as the
 * instance has seen them (counts of other servers' interactions reach it by federation, some late or
 * never), and the account's followers, following and statuses. Mastodon counts no views.
 */

const STATUS_SOURCE = 'GET /api/v1/statuses/:id'
const ACCOUNT_SOURCE = 'GET /api/v1/accounts/verify_credentials'

const count = (value: unknown): number | null =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null

interface StatusCounts {
  favourites_count?: unknown
  reblogs_count?: unknown
  replies_count?: unknown
  quotes_count?: unknown
}

export async function readStatusMetrics(
  client: MastodonClient,
  input: { credentials: Credentials; profile: Profile; remoteId: string },
): Promise<PostMetricsReading> {
  const session = sessionOf(input.credentials, input.profile)
  let body: StatusCounts | undefined
  try {
    ;({ body } = await client.call<StatusCounts>({
      host: session.host,
      method: 'GET',
      path: `/api/v1/statuses/${encodeURIComponent(input.remoteId)}`,
      token: session.token,
      what: "reading the status's counts",
    }))
  } catch (error) {
    if (!(error instanceof PublishFailure && error.options.status === 404)) throw error
    return {
      summary: emptyPostSummary(),
      metrics: {},
      source: STATUS_SOURCE,
      error: `${session.host} has no such status any more: it was deleted`,
    }
  }
  const favourites = count(body?.favourites_count)
  const boosts = count(body?.reblogs_count)
  const replies = count(body?.replies_count)
  const quotes = count(body?.quotes_count)
  const known = [favourites, boosts, replies].filter((n): n is number => n !== null)
  return {
    summary: {
      ...emptyPostSummary(),
      likes: favourites,
      shares: boosts,
      comments: replies,
      engagements: known.length > 0 ? known.reduce((sum, n) => sum + n, 0) : null,
    },
    metrics: {
      favourites_count: favourites,
      reblogs_count: boosts,
      replies_count: replies,
      ...(quotes !== null ? { quotes_count: quotes } : {}),
    },
    source: STATUS_SOURCE,
  }
}

export async function readAccountMetrics(
  client: MastodonClient,
  input: { credentials: Credentials; profile: Profile },
): Promise<ProfileMetricsReading> {
  const session = sessionOf(input.credentials, input.profile)
  const { body } = await readAccount(client, session.host, session.token)
  const followers = count(body?.followers_count)
  const following = count(body?.following_count)
  const statuses = count(body?.statuses_count)
  return {
    summary: { followers, following, posts: statuses, views: null },
    metrics: { followers_count: followers, following_count: following, statuses_count: statuses },
    window: 'lifetime',
    source: ACCOUNT_SOURCE,
  }
}
