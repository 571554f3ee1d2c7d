/**
 * What TikTok asks the poster to choose, and the rules Herald holds a TikTok post to before it is sent
 * (reference A.4, A.6 and TikTok's content-sharing guidelines). Pure: the creator's options come from the
 * network (`creator_info/query`), read by the adapter and handed in.
 */

/** Who may watch a post, as TikTok spells it; the creator's account decides which of them it offers. */
export const tiktokPrivacyLevels = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const

export type TikTokPrivacyLevel = (typeof tiktokPrivacyLevels)[number]

/** The privacy levels in words, as the dashboard shows them. */
export const tiktokPrivacyLabels: Record<TikTokPrivacyLevel, string> = {
  PUBLIC_TO_EVERYONE: 'Everyone',
  MUTUAL_FOLLOW_FRIENDS: 'Friends',
  FOLLOWER_OF_CREATOR: 'Followers',
  SELF_ONLY: 'Only me',
}

/**
 * A post's `tiktok` object as given (create_post, update_post, preflight_post). No field has a default
 * that publishes: the privacy level must be chosen, the interaction switches are off unless turned on, and
 * the commercial-content disclosure is off unless one of its kinds is chosen.
 */
export interface TikTokDetailsInput {
  privacyLevel?: TikTokPrivacyLevel | undefined
  allowComments?: boolean | undefined
  allowDuet?: boolean | undefined
  allowStitch?: boolean | undefined
  /** The creator promotes their own business (TikTok's `brand_organic_toggle`, "Your brand"). */
  yourBrand?: boolean | undefined
  /** A paid partnership with a third party (TikTok's `brand_content_toggle`, "Branded content"). */
  brandedContent?: boolean | undefined
  /** Send to the creator's TikTok inbox as a draft instead of posting; they finish it in the app. */
  sendAsDraft?: boolean | undefined
}

/** The creator's options at posting time (`creator_info/query`). */
export interface TikTokCreator {
  nickname: string
  username: string
  avatarUrl?: string | undefined
  privacyLevels: TikTokPrivacyLevel[]
  commentsOff: boolean
  duetOff: boolean
  stitchOff: boolean
  maxVideoSeconds: number
}

/** Caption of a video post, in UTF-16 code units (reference A.6). */
export const TIKTOK_VIDEO_CAPTION_LIMIT = 2_200
/** Title (the copy's first line, cut) and description of a photo post, in UTF-16 code units. */
export const TIKTOK_PHOTO_TITLE_LIMIT = 90
export const TIKTOK_PHOTO_DESCRIPTION_LIMIT = 4_000
/** Photos in one post. */
export const TIKTOK_MAX_PHOTOS = 35
/** The longest video the API takes, whatever the creator may post in the app. */
export const TIKTOK_MAX_VIDEO_SECONDS = 600

const isPrivacyLevel = (value: unknown): value is TikTokPrivacyLevel =>
  typeof value === 'string' && (tiktokPrivacyLevels as readonly string[]).includes(value)

/** The privacy levels among TikTok's answer that Herald knows, in TikTok's order. */
export const knownPrivacyLevels = (values: unknown): TikTokPrivacyLevel[] =>
  Array.isArray(values) ? values.filter(isPrivacyLevel) : []

const listed = (items: readonly string[], and = 'or') =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${and} ${items.at(-1)}`

export interface TikTokFindings {
  blockers: string[]
  warnings: string[]
}

/**
 * What stops a TikTok post, and what it should know, given the creator's options when Herald could read
 * them (`creator` undefined: TikTok could not be asked now; the send asks again and honours the answer).
 * A post without a privacy level is blocked with the levels the creator may choose (or TikTok's four when
 * unknown); a level the creator does not offer, branded content that only the creator would see, and a
 * video longer than the creator may post are blocked; switches the creator turned off in the app are
 * warned about, as TikTok sends the post with them off. A draft (inbox upload) needs none of it: the
 * creator chooses in the app.
 */
export function tiktokFindings(
  who: string,
  details: TikTokDetailsInput | undefined,
  creator: TikTokCreator | undefined,
  media: { videoSeconds?: number | undefined; photos: number },
): TikTokFindings {
  const blockers: string[] = []
  const warnings: string[] = []
  if (details?.sendAsDraft) return { blockers, warnings }
  const offered = creator?.privacyLevels ?? [...tiktokPrivacyLevels]
  const whose = creator
    ? `@${creator.username} may choose ${listed(offered)}`
    : `TikTok offers ${listed(offered)}; Herald could not read which of them this creator may use now`
  const level = details?.privacyLevel
  if (level === undefined)
    blockers.push(
      `${who}: choose who can watch the post in tiktok.privacyLevel (TikTok allows no default): ${whose}`,
    )
  else if (creator && !creator.privacyLevels.includes(level))
    blockers.push(`${who}: tiktok.privacyLevel ${level} is not offered to this creator; ${whose}`)
  if (details?.brandedContent && level === 'SELF_ONLY')
    blockers.push(`${who}: branded content cannot be private (SELF_ONLY); choose who else can watch it`)
  if (creator && media.videoSeconds !== undefined && media.videoSeconds > creator.maxVideoSeconds)
    blockers.push(
      `${who}: the video is ${Math.round(media.videoSeconds)} s; @${creator.username} may post at most ${creator.maxVideoSeconds} s`,
    )
  if (creator) warnings.push(...switchWarnings(who, details, creator, media.photos > 0))
  return { blockers, warnings }
}

/** The interaction switches a person turned on that the creator has turned off in the TikTok app. */
function switchWarnings(
  who: string,
  details: TikTokDetailsInput | undefined,
  creator: TikTokCreator,
  photos: boolean,
): string[] {
  const off: string[] = []
  if (details?.allowComments && creator.commentsOff) off.push('comments')
  // Duets and stitches are for videos only.
  if (!photos && details?.allowDuet && creator.duetOff) off.push('duets')
  if (!photos && details?.allowStitch && creator.stitchOff) off.push('stitches')
  if (off.length === 0) return []
  return [
    `${who}: @${creator.username} has ${listed(off, 'and')} turned off in the TikTok app, so the post goes out without them`,
  ]
}

/**
 * TikTok's own fields for the interaction switches and the disclosure, as the creator's settings allow:
 * a switch the creator turned off stays off whatever was asked.
 */
export function tiktokPostInfo(details: TikTokDetailsInput | undefined, creator: TikTokCreator | undefined) {
  return {
    disable_comment: !details?.allowComments || creator?.commentsOff === true,
    disable_duet: !details?.allowDuet || creator?.duetOff === true,
    disable_stitch: !details?.allowStitch || creator?.stitchOff === true,
    brand_content_toggle: details?.brandedContent === true,
    brand_organic_toggle: details?.yourBrand === true,
  }
}

/**
 * The sentence TikTok's guidelines require beside the post button: the music terms always, the branded
 * content policy too when the post is branded content.
 */
export function tiktokConsentSentence(details: TikTokDetailsInput | undefined): string {
  return details?.brandedContent
    ? "By posting, you agree to TikTok's Branded Content Policy and Music Usage Confirmation."
    : "By posting, you agree to TikTok's Music Usage Confirmation."
}

/** A photo post's title: the copy's first line, cut to TikTok's 90 UTF-16 units on a whole character. */
export function tiktokPhotoTitle(copy: string): string {
  const line =
    copy
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find(Boolean) ?? ''
  let title = ''
  for (const char of line) {
    if (title.length + char.length > TIKTOK_PHOTO_TITLE_LIMIT) break
    title += char
  }
  return title
}

const MB = 1024 * 1024
/** TikTok's chunk bounds (reference A.4.5): 5 to 64 MB a chunk, the last one up to 128 MB, 1 to 1,000 chunks. */
export const TIKTOK_MIN_CHUNK = 5 * MB
export const TIKTOK_MAX_CHUNK = 64 * MB
export const TIKTOK_MAX_LAST_CHUNK = 128 * MB
export const TIKTOK_MAX_CHUNKS = 1_000

export interface ChunkPlan {
  videoSize: number
  chunkSize: number
  totalChunkCount: number
  /** First and last byte (inclusive) of each chunk, in the order they are sent. */
  ranges: Array<[number, number]>
}

/**
 * How a file of `size` bytes is cut for FILE_UPLOAD: one chunk when it fits in `chunkBytes` (a file under
 * 5 MB must be one), otherwise chunks of `chunkBytes` with the remainder added to the last, as TikTok
 * counts them (`total_chunk_count` = floor(size / chunk_size)).
 */
export function chunkPlan(size: number, chunkBytes = TIKTOK_MAX_CHUNK): ChunkPlan {
  if (!Number.isInteger(size) || size <= 0) throw new RangeError('a video of at least one byte')
  if (chunkBytes < TIKTOK_MIN_CHUNK || chunkBytes > TIKTOK_MAX_CHUNK)
    throw new RangeError('a chunk size of 5 to 64 MB')
  if (size <= chunkBytes)
    return { videoSize: size, chunkSize: size, totalChunkCount: 1, ranges: [[0, size - 1]] }
  const count = Math.floor(size / chunkBytes)
  if (count > TIKTOK_MAX_CHUNKS) throw new RangeError('at most 1,000 chunks')
  const ranges: Array<[number, number]> = []
  for (let i = 0; i < count; i++)
    ranges.push([i * chunkBytes, i === count - 1 ? size - 1 : (i + 1) * chunkBytes - 1])
  return { videoSize: size, chunkSize: chunkBytes, totalChunkCount: count, ranges }
}

/**
 * Whether TikTok would take this cut (the simulator's check, and the adapter's before it sends): what
 * is wrong with it, or undefined.
 */
export function chunkProblem(input: {
  videoSize: number
  chunkSize: number
  totalChunkCount: number
}): string | undefined {
  const { videoSize, chunkSize, totalChunkCount } = input
  if (![videoSize, chunkSize, totalChunkCount].every((n) => Number.isInteger(n) && n > 0))
    return 'video_size, chunk_size and total_chunk_count must be positive integers'
  if (chunkSize > videoSize) return 'chunk_size is larger than video_size'
  if (totalChunkCount > TIKTOK_MAX_CHUNKS) return 'total_chunk_count is over 1000'
  if (totalChunkCount !== Math.floor(videoSize / chunkSize))
    return 'total_chunk_count must be floor(video_size / chunk_size)'
  const whole = totalChunkCount === 1 && chunkSize === videoSize
  if (!whole && chunkSize < TIKTOK_MIN_CHUNK) return 'chunk_size is under 5 MB'
  if (chunkSize > TIKTOK_MAX_CHUNK && !(whole && videoSize <= TIKTOK_MAX_CHUNK))
    return 'chunk_size is over 64 MB'
  if (videoSize - chunkSize * (totalChunkCount - 1) > TIKTOK_MAX_LAST_CHUNK)
    return 'the last chunk is over 128 MB'
  return undefined
}
