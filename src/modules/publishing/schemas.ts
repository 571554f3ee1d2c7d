import { z } from 'zod'
import { MAX_ALT_TEXT } from '../../core/alt-text.js'
import { approvalStates } from '../../core/approval.js'
import { callToActionTypes, localPostTypes } from '../../core/googlebusiness-details.js'
import { MASTODON_LANGUAGE, MAX_CONTENT_WARNING, mastodonVisibilities } from '../../core/mastodon-options.js'
import { networks } from '../../core/networks.js'
import { postStatuses, targetStatuses } from '../../core/post-status.js'
import { historyKinds, historyResults } from '../../core/target-history.js'
import { tiktokPrivacyLevels } from '../../core/tiktok-rules.js'

/** zod schemas shared by the post tools; every field carries the description clients read. */

export const MAX_CONTENT = 100_000
export const MAX_MEDIA = 20
export const MAX_TARGETS = 100

export const networkSchema = z
  .enum(networks)
  .describe(
    'Network value: linkedin, twitter, facebook, instagram, threads, bluesky, youtube, googlebusiness (a Google Business Profile location), tiktok, pinterest or mastodon.',
  )

/** A variants key: a network value, or `<platform>:<profileId>`. */
const variantKey = new RegExp(`^(${networks.join('|')})(:.{1,200})?$`)

export const mediaUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(2048)
  .describe('Public http(s) URL of an image or video; Herald fetches it and re-uploads it.')

export const mediaUrlsSchema = z
  .array(mediaUrlSchema)
  .max(MAX_MEDIA)
  .describe('Ordered attachments (at most 20).')

export const mediaAltTextsSchema = z
  .record(
    mediaUrlSchema,
    z
      .string()
      .max(MAX_ALT_TEXT, `an alt text is at most ${MAX_ALT_TEXT} characters`)
      .describe('What the image shows, in words a screen reader says.'),
  )
  .describe(
    'Optional alt text per image (an addition to the spec), keyed by the image URL exactly as given in mediaUrl, mediaUrls, targetAccounts[].mediaUrls or a thread item: the words follow that image wherever it is used and whatever its order. Sent where the network takes it: twitter (at most 1,000 characters), bluesky (2,000 graphemes), linkedin (4,086), instagram (1,000), facebook and threads; youtube takes videos only. A key that names none of the post\'s media, or a video, is refused. Example: {"https://example.com/cake.jpg": "A lemon cake on a blue plate"}.',
  )

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

const localDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date, YYYY-MM-DD')
  .describe('A date at the business, YYYY-MM-DD.')
const localTime = z
  .string()
  .regex(/^\d{2}:\d{2}$/, 'must be a time, HH:MM')
  .describe('A time of day at the business, HH:MM, 24-hour; leave both times out for whole days.')

export const googlebusinessSchema = z
  .strictObject({
    type: z
      .enum(localPostTypes)
      .optional()
      .describe(
        'update (default: a standard post), event (needs event: title and dates) or offer (needs event: the offer title and dates; offer: coupon, terms, redemption link).',
      ),
    event: z
      .strictObject({
        title: z.string().max(200).describe('The event or offer title.'),
        startDate: localDate,
        startTime: localTime.optional(),
        endDate: localDate,
        endTime: localTime.optional(),
      })
      .optional()
      .describe('Title and schedule of an event or an offer, in the business’s local time.'),
    offer: z
      .strictObject({
        couponCode: z.string().max(200).optional().describe('Code to use in store or online.'),
        redeemOnlineUrl: z
          .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
          .max(2048)
          .optional()
          .describe('Where the offer is redeemed online.'),
        termsConditions: z.string().max(5000).optional().describe('Terms and conditions of the offer.'),
      })
      .optional()
      .describe('Offer details; only for type offer.'),
    callToAction: z
      .strictObject({
        actionType: z
          .enum(callToActionTypes)
          .describe(
            'The button: BOOK, ORDER (Order online), SHOP (Buy), LEARN_MORE, SIGN_UP or CALL (Call now, which calls the profile’s phone number).',
          ),
        url: z
          .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
          .max(2048)
          .optional()
          .describe('Where the button leads; required for every button but CALL, which takes none.'),
      })
      .optional()
      .describe('Optional button under an update or an event (an offer shows Google’s own “Get offer”).'),
  })
  .describe(
    'Google Business Profile post details (an addition to the spec); ignored for other networks. The copy is the post’s summary (at most 1,500 characters) and one photo may go with it. Example offer: {"type": "offer", "event": {"title": "Two for one", "startDate": "2026-10-01", "endDate": "2026-10-31"}, "offer": {"couponCode": "TWOFOR1", "redeemOnlineUrl": "https://example.com/offer"}}.',
  )

export const tiktokSchema = z
  .strictObject({
    privacyLevel: z
      .enum(tiktokPrivacyLevels)
      .optional()
      .describe(
        'Who can watch it: PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR or SELF_ONLY, one the creator may choose (preflight_post names them). Required, no default: ask the user. Not needed with sendAsDraft.',
      ),
    allowComments: z.boolean().optional().describe('Let viewers comment. Default false.'),
    allowDuet: z.boolean().optional().describe('Let viewers duet the video (videos only). Default false.'),
    allowStitch: z
      .boolean()
      .optional()
      .describe('Let viewers stitch the video (videos only). Default false.'),
    yourBrand: z
      .boolean()
      .optional()
      .describe(
        'Commercial content disclosure: the post promotes the creator’s own business. Default false.',
      ),
    brandedContent: z
      .boolean()
      .optional()
      .describe(
        'Commercial content disclosure: a paid partnership with a brand (cannot be SELF_ONLY). Default false.',
      ),
    sendAsDraft: z
      .boolean()
      .optional()
      .describe(
        'Send to the creator’s TikTok inbox as a draft instead of posting; they finish and post it in the app. Default false.',
      ),
  })
  .describe(
    'TikTok post settings (an addition to the spec); ignored for other networks. Confirm the privacy level, switches and disclosure with the user: TikTok requires the poster to choose them.',
  )

export const pinterestSchema = z
  .strictObject({
    title: z
      .string()
      .max(1000)
      .optional()
      .describe('Pin title, at most 100 characters (preflight_post blocks a longer one). Default: none.'),
    link: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(4096)
      .optional()
      .describe('The page the pin opens, at most 2,048 characters. Default: none.'),
    coverImageUrl: mediaUrlSchema
      .optional()
      .describe("A video pin's cover image. Default: the video's first frame."),
  })
  .describe(
    'Pinterest pin details (an addition to the spec); ignored for other networks. The copy is the pin description (800 characters).',
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
    'Optional first comment (an addition to the spec): posted right after the post as a comment on facebook, instagram, linkedin and youtube, and as a reply on twitter, bluesky and threads (googlebusiness posts take none). Comment limits: instagram 2,196, linkedin 1,250, facebook 8,000, youtube 10,000 characters; replies take the post limit. Example: "Link in the article: https://example.com". Costs what a post costs on its network.',
  )

export const threadVariantsSchema = z
  .record(z.string().regex(variantKey, 'keys are a network value or <platform>:<profileId>'), threadSchema)
  .describe('Optional thread per network or per profile (keys as in variants); wins over thread.')

export const firstCommentVariantsSchema = z
  .record(
    z.string().regex(variantKey, 'keys are a network value or <platform>:<profileId>'),
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
    tiktok: tiktokSchema
      .optional()
      .describe('TikTok settings for this profile only (merged over the shared tiktok object).'),
    pinterest: pinterestSchema
      .optional()
      .describe('Pin details for this profile only (merged over the shared pinterest object).'),
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
  .record(z.string().regex(variantKey, 'keys are a network value or <platform>:<profileId>'), contentSchema)
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
  history: z
    .array(
      z.object({
        at: z.string().describe('When it happened (ISO 8601).'),
        kind: z
          .enum(historyKinds)
          .describe(
            'lookup: Herald looked for the post on the network before sending again; attempt: a send ended; interrupted: the worker sending it went away mid-send; reset: a person released a stuck send (reset_stuck_post); retried: a failed profile was sent again (publish_post_now, reschedule_post or an approval).',
          ),
        result: z
          .enum(historyResults)
          .describe(
            'lookup: found (on the network, so not sent again), absent (not there, so sent), ambiguous (could not tell: stuck), unreachable (could not ask: looked for again later, nothing sent meanwhile). attempt and interrupted: published, failed, retry (tried again later), check (no clear answer: looked up before sending again), stuck (no clear answer, no lookup can tell). reset: look, release (marked failed) or confirm (on the network, as the person said). retried: now, rescheduled or approved.',
          ),
        sent: z
          .boolean()
          .optional()
          .describe('For an attempt: true when it made a publishing call to the network.'),
        detail: z.string().optional().describe("The network's or Herald's words, when there are any."),
      }),
    )
    .optional()
    .describe(
      'What happened to this profile, oldest first (an addition to the spec): every attempt, lookup, interruption, reset and retry since Herald began recording them. Only get_post with history: true answers it.',
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
  mediaAltTexts: z
    .record(z.string(), z.string())
    .optional()
    .describe("Alt text per image of the post's media, keyed by media URL; absent when none."),
  youtube: youtubeSchema.optional().describe('YouTube upload details as given.'),
  googlebusiness: googlebusinessSchema
    .optional()
    .describe('Google Business Profile post details as given (googlebusiness profiles only).'),
  tiktok: tiktokSchema.optional().describe('TikTok post settings as given (an addition to the spec).'),
  pinterest: pinterestSchema.optional().describe('Pinterest pin details as given; absent when none.'),
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
