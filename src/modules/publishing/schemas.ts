import { z } from 'zod'
import { approvalStates } from '../../core/approval.js'
import { MASTODON_LANGUAGE, MAX_CONTENT_WARNING, mastodonVisibilities } from '../../core/mastodon-options.js'
import { networks } from '../../core/networks.js'
import { postStatuses, targetStatuses } from '../../core/post-status.js'

/** zod schemas shared by the post tools; every field carries the description clients read. */

export const MAX_CONTENT = 100_000
export const MAX_MEDIA = 20
export const MAX_TARGETS = 100

export const networkSchema = z
  .enum(networks)
  .describe('Network value: linkedin, twitter, facebook, instagram, threads, bluesky, youtube or mastodon.')

export const mediaUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .describe('Public http(s) URL of an image or video; Herald fetches it and re-uploads it.')

export const mediaUrlsSchema = z
  .array(mediaUrlSchema)
  .max(MAX_MEDIA)
  .describe('Ordered attachments (at most 20).')

export const youtubeSchema = z
  .strictObject({
    title: z
      .string()
      .max(100)
      .optional()
      .describe('Video title, at most 100 characters. Default: the first line of the copy.'),
    description: z
      .string()
      .max(5000)
      .optional()
      .describe('Video description, at most 5,000 characters. Default: the whole copy.'),
    privacyStatus: z
      .enum(['public', 'unlisted', 'private'])
      .optional()
      .describe('Visibility: public (default), unlisted or private.'),
  })
  .describe(
    'YouTube upload details; ignored for other networks. Confirm the visibility with the user before creating the post.',
  )

export const mastodonSchema = z
  .strictObject({
    visibility: z
      .enum(mastodonVisibilities)
      .optional()
      .describe(
        'Who sees the status: public (default), unlisted (not on public timelines), private (followers only) or direct (mentioned people only).',
      ),
    contentWarning: z
      .string()
      .max(MAX_CONTENT_WARNING)
      .optional()
      .describe(
        "A content warning shown instead of the text and media until the reader opens them; it counts towards the instance's character limit.",
      ),
    language: z
      .string()
      .regex(MASTODON_LANGUAGE, 'an ISO 639 language code such as en')
      .optional()
      .describe('ISO 639 code of the language of the copy, e.g. en.'),
  })
  .describe(
    'Mastodon details (an addition to the spec), applied to the status and every item of its thread; ignored for other networks.',
  )

export const contentSchema = z.string().max(MAX_CONTENT)

/**
 * A thread. The schema takes up to 100 items so that a longer thread is reported with its field path
 * (create_post 400, preflight blocker: "a thread takes at most 25") rather than as a malformed request.
 */
export const MAX_THREAD_INPUT = 100

export const threadItemSchema = z
  .strictObject({
    content: contentSchema.describe('Copy of this item, counted as the network counts a post.'),
    mediaUrls: mediaUrlsSchema
      .optional()
      .describe('Attachments of this item (as for a post on its network).'),
  })
  .describe('One follow-up post of a thread.')

export const threadSchema = z
  .array(threadItemSchema)
  .max(MAX_THREAD_INPUT)
  .describe(
    'Optional thread (an addition to the spec): follow-up posts published in order after the post, each a reply to the one before, on twitter, bluesky, threads and mastodon (other networks take none). At most 25 items. Example: [{"content": "2/ The details"}, {"content": "3/ Read more", "mediaUrls": ["https://example.com/chart.png"]}]. Each item costs what a post costs on its network.',
  )

export const firstCommentSchema = z
  .string()
  .max(MAX_CONTENT)
  .describe(
    'Optional first comment (an addition to the spec): posted right after the post as a comment on facebook, instagram, linkedin and youtube, and as a reply on twitter, bluesky, threads and mastodon. Comment limits: instagram 2,196, linkedin 1,250, facebook 8,000, youtube 10,000 characters; replies take the post limit. Example: "Link in the article: https://example.com". Costs what a post costs on its network.',
  )

export const threadVariantsSchema = z
  .record(
    z
      .string()
      .regex(
        /^(linkedin|twitter|facebook|instagram|threads|bluesky|youtube|mastodon)(:.{1,200})?$/,
        'keys are a network value or <platform>:<profileId>',
      ),
    threadSchema,
  )
  .describe('Optional thread per network or per profile (keys as in variants); wins over thread.')

export const firstCommentVariantsSchema = z
  .record(
    z
      .string()
      .regex(
        /^(linkedin|twitter|facebook|instagram|threads|bluesky|youtube|mastodon)(:.{1,200})?$/,
        'keys are a network value or <platform>:<profileId>',
      ),
    firstCommentSchema,
  )
  .describe(
    'Optional first comment per network or per profile (keys as in variants); wins over firstComment.',
  )

export const targetAccountSchema = z
  .strictObject({
    platform: networkSchema,
    profileId: z.string().min(1).max(200).optional().describe('Profile id from get_connected_accounts.'),
    username: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe('Handle, carried for readability (also matches a profile when profileId is omitted).'),
    userId: z.string().max(200).optional().describe('Platform-side user id when the network needs it.'),
    content: contentSchema
      .optional()
      .describe('Copy for this profile only; overrides the shared content and variants.'),
    mediaUrl: mediaUrlSchema.optional().describe('Media for this profile only.'),
    mediaUrls: mediaUrlsSchema
      .optional()
      .describe('Attachment set for this profile only; replaces the shared set.'),
    youtube: youtubeSchema
      .optional()
      .describe('Upload details for this profile only (merged over the shared youtube object).'),
    mastodon: mastodonSchema
      .optional()
      .describe('Mastodon details for this profile only (merged over the shared mastodon object).'),
    thread: threadSchema
      .optional()
      .describe('Thread for this profile only; wins over threadVariants and thread.'),
    firstComment: firstCommentSchema
      .optional()
      .describe('First comment for this profile only; wins over firstCommentVariants and firstComment.'),
  })
  .describe('One exact profile to post to.')

export const variantsSchema = z
  .record(
    z
      .string()
      .regex(
        /^(linkedin|twitter|facebook|instagram|threads|bluesky|youtube|mastodon)(:.{1,200})?$/,
        'keys are a network value or <platform>:<profileId>',
      ),
    contentSchema,
  )
  .describe('Copy per network (key: network value) or per profile (key: <platform>:<profileId>).')

export const dateSchema = z.string().max(10).describe('Slot date, YYYY-MM-DD.')
export const timeSchema = z.string().max(5).describe('Slot time, HH:MM, 24-hour.')
export const timezoneSchema = z
  .string()
  .max(64)
  .describe('IANA zone of the slot, e.g. Asia/Kolkata. Default UTC.')

export const targetViewSchema = z.object({
  platform: networkSchema,
  profileId: z.string().describe('Profile id.'),
  username: z.string().describe('Handle.'),
  status: z.enum(targetStatuses).describe('pending, published or failed.'),
  postId: z.string().optional().describe('Remote id of the published copy, on success.'),
  url: z.string().optional().describe('Live URL of the published copy.'),
  error: z.string().optional().describe('Why delivery failed, on failure.'),
  uploadError: z.string().optional().describe('A media upload that failed while the post still shipped.'),
  publishedAt: z.string().optional().describe('When this profile received it (ISO 8601).'),
  items: z
    .array(
      z.object({
        kind: z
          .enum(['thread', 'firstComment'])
          .describe('thread: a reply to the item before; firstComment: a comment on (or reply to) the post.'),
        content: z.string().describe('Copy of the item.'),
        status: z.enum(targetStatuses).describe('pending, published or failed.'),
        postId: z.string().optional().describe('Remote id of the item, once live.'),
        url: z.string().optional().describe('Live URL of the item.'),
        error: z.string().optional().describe('Why the network refused it.'),
        publishedAt: z.string().optional().describe('When it went out (ISO 8601).'),
      }),
    )
    .optional()
    .describe(
      "The thread items and first comment delivered after the post, in order, each with its own status; the target's url stays the post's. Absent when there are none.",
    ),
})

export const postViewSchema = z.object({
  id: z.string().describe('Post id.'),
  content: z.string().describe('Shared text body.'),
  platforms: z.array(networkSchema).describe('Networks of the targets.'),
  targets: z.array(targetViewSchema).describe('Per-profile delivery.'),
  status: z.enum(postStatuses).describe('scheduled, published, draft, failed or processing.'),
  scheduleDate: z.string().describe('Slot date, YYYY-MM-DD (the send time for immediate posts).'),
  scheduleTime: z.string().describe('Slot time, HH:MM.'),
  timezone: z.string().describe('IANA zone of the slot.'),
  dueAt: z
    .string()
    .nullable()
    .describe('The slot as a UTC instant (ISO 8601); null while out of the queue with no slot.'),
  mediaUrl: z.string().optional().describe('The first attachment, when there is one.'),
  mediaUrls: z.array(z.string()).describe('Attachment set.'),
  youtube: youtubeSchema.optional().describe('YouTube upload details as given.'),
  mastodon: mastodonSchema.optional().describe('Mastodon details as given (an addition to the spec).'),
  variants: z
    .record(z.string(), z.string())
    .optional()
    .describe('Per-network and per-profile copy as given.'),
  createdAt: z.string().describe('ISO 8601 timestamp.'),
  publishedAt: z.string().optional().describe('When the first profile received it.'),
  attempts: z.number().int().describe('Send attempts so far, over all targets.'),
  lastError: z.string().describe('Latest delivery error; empty when none.'),
  approval: z
    .object({
      state: z
        .enum(approvalStates)
        .describe(
          'pending (a draft waiting for an owner), approved, or rejected (a draft; see note). Pending posts are charged when approved.',
        ),
      note: z.string().optional().describe("The owner's note on the latest rejection."),
      decidedAt: z.string().optional().describe('When an owner approved or rejected it (ISO 8601).'),
      version: z
        .string()
        .optional()
        .describe(
          'While pending: a fingerprint of what approving would send (copy, media, profiles, slot). Approving with it is refused (409) when the post changed since.',
        ),
    })
    .optional()
    .describe(
      "Approval, in workspaces where owners approve editors' posts (an addition to the spec; absent when the post never needed one).",
    ),
  thread: z
    .array(z.object({ content: z.string(), mediaUrls: z.array(z.string()).optional() }))
    .optional()
    .describe('The thread as given for this post (an addition to the spec); absent when none.'),
  firstComment: z.string().optional().describe('The first comment as given for this post; absent when none.'),
  queued: z
    .boolean()
    .optional()
    .describe("True when the slot came from the profile's posting queue (queue: true); absent otherwise."),
  composeId: z
    .string()
    .optional()
    .describe(
      'The compose this post belongs to (an addition to the spec): every post one create_post call made, one per targeted profile, shares it (the id of the first of them). A post made before compose ids were recorded is its own compose (its own id).',
    ),
})

export type PostView = z.infer<typeof postViewSchema>
