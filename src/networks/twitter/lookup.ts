import { z } from 'zod'
import type { LookupRequest, PublishResult } from '../adapter.js'
import { API_TIMEOUT_MS, expectOk, sendToTwitter, type TwitterContext } from './client.js'

const timeline = z.object({
  data: z.array(z.object({ id: z.string(), text: z.string(), created_at: z.string().optional() })).optional(),
})

/** X rewrites links to t.co and appends media links: posts are compared without URLs or spacing. */
export function comparableText(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
}

/** X's clocks and Herald's may disagree a little: look a minute before the attempt began. */
const CLOCK_SLACK_MS = 60_000

/**
 * Looks for the post an unanswered `POST /2/tweets` may have made: the profile's recent posts
 * (`GET /2/users/:id/tweets`, newest first) created since the attempt began, with the same copy.
 */
export async function findTweet(ctx: TwitterContext, request: LookupRequest): Promise<PublishResult | null> {
  const answer = await sendToTwitter(ctx, {
    method: 'GET',
    path: `/2/users/${encodeURIComponent(request.profile.profileId)}/tweets`,
    query: {
      max_results: '20',
      start_time: new Date(request.since - CLOCK_SLACK_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      'tweet.fields': 'created_at',
    },
    bearer: request.credentials.accessToken,
    signal: request.signal,
    timeoutMs: API_TIMEOUT_MS,
    what: 'the recent posts',
  })
  const body = timeline.safeParse(expectOk(ctx, answer, 'read', [request.credentials.accessToken]))
  const wanted = comparableText(request.content)
  const match = (body.success ? (body.data.data ?? []) : []).find((t) => comparableText(t.text) === wanted)
  if (!match) return null
  return { remoteId: match.id, url: `https://x.com/${request.profile.username}/status/${match.id}` }
}
