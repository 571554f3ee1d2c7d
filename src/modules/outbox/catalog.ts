import type { EventType } from '../../core/webhook-events.js'

/** What each event means and one example body: the OpenAPI `webhooks` section is built from this. */

const post = {
  id: '6745f09fb1c2d3e4f5a6b7c1',
  content: 'Launch day!',
  platforms: ['twitter', 'linkedin', 'bluesky'],
  targets: [
    {
      platform: 'twitter',
      profileId: '1234',
      username: 'acme',
      status: 'published',
      postId: '1861',
      url: 'https://x.com/acme/status/1861',
      publishedAt: '2026-11-26T15:04:05.000Z',
    },
    {
      platform: 'linkedin',
      profileId: 'urn:li:organization:42',
      username: 'acme',
      status: 'failed',
      error: 'LinkedIn refused the copy',
    },
    {
      platform: 'bluesky',
      profileId: 'did:plc:abc',
      username: 'acme.bsky.social',
      status: 'published',
      postId: 'at://did:plc:abc/app.bsky.feed.post/3k',
      url: 'https://bsky.app/profile/acme.bsky.social/post/3k',
      publishedAt: '2026-11-26T15:04:06.000Z',
    },
  ],
  status: 'published',
  scheduleDate: '2026-11-26',
  scheduleTime: '15:04',
  timezone: 'UTC',
  dueAt: '2026-11-26T15:04:00.000Z',
  mediaUrls: [],
  createdAt: '2026-11-26T14:00:00.000Z',
  publishedAt: '2026-11-26T15:04:05.000Z',
  attempts: 1,
  lastError: 'LinkedIn refused the copy',
}
const target = post.targets[0]
/** Nothing went out: no publishedAt, and only the refused profile. */
const { publishedAt: _never, ...unpublished } = post
const failedPost = {
  ...unpublished,
  status: 'failed',
  platforms: ['linkedin'],
  targets: [post.targets[1]],
}
const account = {
  platform: 'twitter',
  username: 'acme',
  name: 'Acme',
  profileId: '1234',
  isOrganization: false,
}

export const eventCatalog: Record<EventType, { summary: string; data: Record<string, unknown> }> = {
  'post.published': {
    summary: 'Every target of the post settled, all published.',
    data: {
      post: {
        ...post,
        platforms: ['twitter', 'bluesky'],
        targets: [post.targets[0], post.targets[2]],
        lastError: '',
      },
    },
  },
  'post.partially_published': {
    summary: 'Every target settled; some published, some failed.',
    data: { post },
  },
  'post.failed': {
    summary: 'Every target settled; none published.',
    data: { post: failedPost },
  },
  'target.published': {
    summary: "One profile's copy went out.",
    data: { postId: post.id, postStatus: 'processing', target },
  },
  'target.failed': {
    summary: 'One profile refused the post, or its attempts ran out.',
    data: { postId: post.id, postStatus: 'processing', target: post.targets[1] },
  },
  'target.stuck': {
    summary: 'A send was interrupted; its outcome is unknown until a person checks.',
    data: {
      postId: post.id,
      postStatus: 'processing',
      target: {
        platform: 'twitter',
        profileId: '1234',
        username: 'acme',
        status: 'pending',
        error: 'Publishing stopped mid-send …',
      },
      reason: 'Publishing stopped mid-send (the worker holding it went away); the outcome is unknown.',
      action:
        'Check the profile on the network. If the post is there, nothing to do; if not, call reset_stuck_post and then publish_post_now.',
    },
  },
  'account.needs_reconnect': {
    summary: "A connection's tokens were refused; posts to it fail until it is reconnected.",
    data: {
      account,
      reason: 'The token was revoked',
      action: 'Reconnect this profile from the dashboard (Channels) or with the connect link.',
    },
  },
  'account.expiring': {
    summary:
      "A connection's authorisation ends soon: sent 7 days and again 1 day before (once each per end; a reconnect that moves the end starts over).",
    data: {
      account,
      expiresAt: '2026-12-03T15:04:05.000Z',
      daysLeft: 6,
      warning: '7d',
      reason: 'The linkedin authorisation of this profile ends in 6 days; posts to it fail after that.',
      action: 'Reconnect this profile from the dashboard (Channels) or with the connect link before then.',
    },
  },
  'credits.low': {
    summary: "A charge took the workspace's balance below the threshold its owner set.",
    data: {
      credits: { balance: 45, threshold: 50 },
      reason: 'A create_post charge of 10 credits took the balance to 45, below 50.',
      operation: 'create_post',
    },
  },
  'endpoint.disabled': {
    summary: 'Herald disabled another endpoint of the workspace (410 Gone, or 3 days of failures).',
    data: {
      endpoint: { id: '6745f0a1c2d3e4f5a6b7c8d0', url: 'https://example.com/hook', description: 'CRM' },
      reason: 'Every delivery failed for 3 days.',
    },
  },
  'webhook.test': {
    summary: 'Sent when an owner asks for a test event.',
    data: {
      endpoint: { id: '6745f0a1c2d3e4f5a6b7c8d0', url: 'https://example.com/hook' },
      message: 'A test event from Herald.',
    },
  },
}

/** The OpenAPI 3.1 `webhooks` object: one entry per event type with an example body. */
export function openApiWebhooks() {
  return Object.fromEntries(
    Object.entries(eventCatalog).map(([type, entry]) => [
      type,
      {
        post: {
          summary: entry.summary,
          description:
            'Signed by Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp`, `webhook-signature` (`v1,` HMAC-SHA256 of `id.timestamp.body`). Answer 2xx within 15 s.',
          requestBody: {
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Event' },
                example: {
                  id: '6745f0a1c2d3e4f5a6b7c8d9',
                  type,
                  timestamp: '2026-11-26T15:04:05.000Z',
                  workspaceId: '6745e9a0b1c2d3e4f5a6b7c8',
                  data: entry.data,
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'Any 2xx: delivered. Anything else is retried; 410 disables the endpoint.',
            },
          },
        },
      },
    ]),
  )
}

export const eventSchema = {
  type: 'object',
  required: ['id', 'type', 'timestamp', 'workspaceId', 'data'],
  properties: {
    id: { type: 'string', description: 'The event id; also the webhook-id header. Deduplicate on it.' },
    type: { type: 'string', enum: Object.keys(eventCatalog) },
    timestamp: { type: 'string', format: 'date-time', description: 'When the change happened.' },
    workspaceId: { type: 'string' },
    data: {
      type: 'object',
      description: 'The post, target or account as the tools answer them; never a token.',
    },
  },
}
