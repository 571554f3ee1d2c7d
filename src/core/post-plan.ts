import { type AltTexts, altTextBlockers, altTextsFor } from './alt-text.js'
import {
  type GoogleBusinessInput,
  googleBusinessBlockers,
  type ResolvedGoogleBusiness,
  resolveGoogleBusiness,
  titleAlone,
} from './googlebusiness-details.js'
import {
  defaultInstanceLimits,
  type InstanceLimits,
  type MastodonOptions,
  resolveMastodonOptions,
  statusLength,
} from './mastodon-options.js'
import {
  countHashtags,
  countMentions,
  LINK_SURCHARGE,
  looksLikeVideo,
  networkRules,
  reportedTextLimits,
} from './network-rules.js'
import type { Network } from './networks.js'
import {
  type PinterestDetails,
  type PinterestDetailsInput,
  pinterestDetailBlockers,
  resolvePinterestDetails,
} from './pinterest-details.js'
import { lengthOn } from './text-length.js'
import {
  type DeliveryItem,
  deliveryItems,
  itemBlockers,
  itemsPrice,
  type PostItems,
  postHoldsLink,
  type ThreadItemInput,
  takesFirstComments,
  takesThreads,
  threadNetworks,
} from './thread-items.js'
import { type TikTokCreator, type TikTokDetailsInput, tiktokFindings } from './tiktok-rules.js'
import {
  type ResolvedYouTubeDetails,
  resolveYouTubeDetails,
  type YouTubeDetailsInput,
} from './youtube-details.js'

/**
 * Turns a post request into the targets it will create, each with its own copy, media and YouTube details,
 * plus everything that would stop it (blockers), advice (warnings) and its price. Pure: the caller supplies
 * the workspace's connections. create_post, preflight_post and update_post all plan through here.
 */

export interface ConnectionInfo {
  id: string
  platform: Network
  profileId: string
  username: string
  status: 'active' | 'needs_reconnect' | 'removed'
  /** A Mastodon profile's instance limits, as last read from the instance (Mastodon's defaults until then). */
  limits?: InstanceLimits
}

export interface TargetRequest {
  platform: Network
  profileId?: string | undefined
  username?: string | undefined
  content?: string | undefined
  mediaUrl?: string | undefined
  mediaUrls?: string[] | undefined
  youtube?: YouTubeDetailsInput | undefined
  tiktok?: TikTokDetailsInput | undefined
  pinterest?: PinterestDetailsInput | undefined
  mastodon?: MastodonOptions | undefined
  thread?: ThreadItemInput[] | undefined
  firstComment?: string | undefined
}

export interface PlanInput {
  content: string
  targetAccounts?: TargetRequest[] | undefined
  platforms?: Network[] | undefined
  variants?: Record<string, string> | undefined
  youtube?: YouTubeDetailsInput | undefined
  /** What a Google Business Profile post is (an update, an event, an offer) and its button. */
  googlebusiness?: GoogleBusinessInput | undefined
  tiktok?: TikTokDetailsInput | undefined
  /**
   * What each TikTok creator may choose now, by connection id, where Herald read it (preflight_post and
   * create_post ask TikTok first; update_post does not, and the send asks again and honours the answer).
   */
  tiktokCreators?: ReadonlyMap<string, TikTokCreator> | undefined
  /** A pin's title, link and video cover (an addition to the spec; ignored for other networks). */
  pinterest?: PinterestDetailsInput | undefined
  /** Visibility, content warning and language of Mastodon statuses (ignored elsewhere). */
  mastodon?: MastodonOptions | undefined
  mediaUrl?: string | undefined
  mediaUrls?: string[] | undefined
  /** Alt text per image, keyed by the image's URL, wherever the image is used. */
  mediaAltTexts?: AltTexts | undefined
  /** A thread and a first comment, shared, per network or profile, or per target request. */
  thread?: ThreadItemInput[] | undefined
  firstComment?: string | undefined
  threadVariants?: Record<string, ThreadItemInput[]> | undefined
  firstCommentVariants?: Record<string, string> | undefined
}

export interface TargetOverrides {
  content?: string
  mediaUrls?: string[]
  youtube?: YouTubeDetailsInput
  tiktok?: TikTokDetailsInput
  pinterest?: PinterestDetailsInput
  mastodon?: MastodonOptions
}

export interface PlannedTarget {
  connection: ConnectionInfo
  overrides: TargetOverrides
  content: string
  mediaUrls: string[]
  /** The alt texts of the images this profile sends (its set and its thread items'), by URL. */
  altTexts: AltTexts
  youtube: ResolvedYouTubeDetails | null
  /** A Google Business Profile target's post type and button; null on every other network. */
  googlebusiness: ResolvedGoogleBusiness | null
  /** What the TikTok poster chose (the shared object with this profile's own merged over it). */
  tiktok: TikTokDetailsInput | null
  /** A Pinterest target's title, link and cover (the shared object merged under its own); null elsewhere. */
  pinterest: PinterestDetails | null
  /** A Mastodon profile's visibility, content warning and language (null elsewhere, or when none is given). */
  mastodon: MastodonOptions | null
  /** The thread items and first comment delivered after the post, in order. */
  items: DeliveryItem[]
  /** The thread and first comment as resolved for this profile, kept on its post. */
  postItems: PostItems
}

export interface UnknownTarget {
  platform: string
  profileId?: string
  username?: string
  reason: string
}

export interface MediaSetLimit {
  min: number
  max: number
  mixesVideo: boolean
}

export interface Plan {
  targets: PlannedTarget[]
  unknownTargets: UnknownTarget[]
  blockers: string[]
  warnings: string[]
  /** Credits the post costs: each target's network price plus the one-off link surcharge. */
  cost: number
  hasLink: boolean
  characterCount: number
  limits: Record<Network, number>
  /** Set when some target carries more than one attachment. */
  mediaCount?: number
  mediaSetLimits?: Partial<Record<Network, MediaSetLimit>>
}

const label = (c: ConnectionInfo) => `${c.platform} @${c.username}`

/** Every URL Herald fetches for a target's own post: its attachments and a video pin's cover image. */
export const targetMediaToFetch = (target: Pick<PlannedTarget, 'mediaUrls' | 'pinterest'>): string[] => [
  ...target.mediaUrls,
  ...(target.pinterest?.coverImageUrl ? [target.pinterest.coverImageUrl] : []),
]
/** The rules a profile is held to: its network's, with a Mastodon instance's own limits over them. */
export function rulesOf(connection: Pick<ConnectionInfo, 'platform' | 'limits'>) {
  const rules = networkRules[connection.platform]
  if (connection.platform !== 'mastodon') return rules
  const limits = connection.limits ?? defaultInstanceLimits
  return { ...rules, textLimit: limits.textLimit, maxMedia: limits.maxMedia }
}

/** A copy's length as the profile's network counts it (a Mastodon status with its content warning). */
export function lengthFor(
  connection: Pick<ConnectionInfo, 'platform' | 'limits'>,
  text: string,
  mastodon?: MastodonOptions | null,
): number {
  if (connection.platform !== 'mastodon') return lengthOn(connection.platform, text)
  return statusLength(text, mastodon ?? undefined, connection.limits ?? defaultInstanceLimits)
}

/** Media per target: targetAccounts[].mediaUrls > .mediaUrl > mediaUrls > mediaUrl (DESIGN.md). */
export function resolveMedia(
  override: { mediaUrls?: string[] | undefined; mediaUrl?: string | undefined } | undefined,
  shared: { mediaUrls?: string[] | undefined; mediaUrl?: string | undefined },
): string[] {
  if (override?.mediaUrls) return override.mediaUrls
  if (override?.mediaUrl) return [override.mediaUrl]
  if (shared.mediaUrls) return shared.mediaUrls
  return shared.mediaUrl ? [shared.mediaUrl] : []
}

/** Copy per target: targetAccounts[].content > variants["<platform>:<profileId>"] > variants[platform] > content. */
export function resolveCopy(
  connection: ConnectionInfo,
  override: string | undefined,
  variants: Record<string, string>,
  content: string,
) {
  return (
    override ??
    variants[`${connection.platform}:${connection.profileId}`] ??
    variants[connection.platform] ??
    content
  )
}

/** Which connections a request names; entries that match nothing are reported, never guessed. */
export function selectConnections(
  input: Pick<PlanInput, 'targetAccounts' | 'platforms'>,
  connections: ConnectionInfo[],
) {
  const chosen = new Map<string, { connection: ConnectionInfo; request?: TargetRequest }>()
  const unknown: UnknownTarget[] = []
  const live = connections.filter((c) => c.status !== 'removed')
  for (const request of input.targetAccounts ?? []) {
    const onNetwork = live.filter((c) => c.platform === request.platform)
    let match: ConnectionInfo[]
    if (request.profileId !== undefined) match = onNetwork.filter((c) => c.profileId === request.profileId)
    else if (request.username !== undefined) {
      const wanted = request.username.replace(/^@/, '').toLowerCase()
      match = onNetwork.filter((c) => c.username.replace(/^@/, '').toLowerCase() === wanted)
    } else match = onNetwork
    const who = {
      platform: request.platform,
      ...(request.profileId ? { profileId: request.profileId } : {}),
      ...(request.username ? { username: request.username } : {}),
    }
    if (match.length === 0) {
      unknown.push({
        ...who,
        reason: `No connected ${request.platform} profile matches ${request.profileId ?? request.username ?? 'this entry'}`,
      })
    } else if (match.length > 1) {
      unknown.push({
        ...who,
        reason: `${match.length} ${request.platform} profiles are connected; name one with profileId`,
      })
    } else {
      const connection = match[0] as ConnectionInfo
      chosen.set(connection.id, { connection, request })
    }
  }
  // A whole network expands to its live profiles, as get_connected_accounts lists them; profiles that need
  // reconnecting are left out with a warning, unless they are all there is (then the post cannot go out).
  const skipped: ConnectionInfo[] = []
  for (const platform of new Set(input.platforms ?? [])) {
    const onNetwork = live.filter((c) => c.platform === platform)
    const active = onNetwork.filter((c) => c.status === 'active')
    if (onNetwork.length === 0)
      unknown.push({ platform, reason: `No ${platform} profile is connected in this workspace` })
    for (const connection of active.length > 0 ? active : onNetwork)
      if (!chosen.has(connection.id)) chosen.set(connection.id, { connection })
    if (active.length > 0)
      skipped.push(...onNetwork.filter((c) => c.status !== 'active' && !chosen.has(c.id)))
  }
  return { chosen: [...chosen.values()], unknown, skipped }
}

export function planPost(input: PlanInput, connections: ConnectionInfo[]): Plan {
  const { chosen, unknown, skipped } = selectConnections(input, connections)
  const blockers: string[] = []
  const warnings: string[] = []
  if (!input.targetAccounts?.length && !input.platforms?.length)
    blockers.push('Name at least one profile in targetAccounts or one network in platforms')
  for (const u of unknown) blockers.push(u.reason)
  for (const c of skipped) warnings.push(`${label(c)} is left out: it needs to be reconnected`)

  const targets = chosen.map((choice) => planTarget(input, choice, blockers))
  checkSharedThread(input, targets, { blockers, warnings })
  checkSharedFirstComment(input, targets, warnings)
  for (const target of targets) checkTarget(target, { blockers, warnings }, input.tiktokCreators)
  blockers.push(
    ...altTextBlockers(
      input.mediaAltTexts,
      targets.map((t) => ({ who: label(t.connection), platform: t.connection.platform, urls: sentUrls(t) })),
    ),
  )

  const hasLink = targets.some((t) => postHoldsLink(t.content, t.items))
  if (hasLink)
    warnings.push(`The copy holds a link: a one-off surcharge of ${LINK_SURCHARGE} credits applies`)
  const cost =
    targets.reduce(
      (sum, t) =>
        sum + networkRules[t.connection.platform].price + itemsPrice(t.connection.platform, t.items),
      0,
    ) + (hasLink && targets.length > 0 ? LINK_SURCHARGE : 0)
  const sets = mediaSets(targets)
  return {
    targets,
    unknownTargets: unknown,
    blockers,
    warnings,
    cost,
    hasLink,
    characterCount: [...input.content].length,
    limits: reportedLimits(targets),
    ...(sets.mediaCount !== undefined ? sets : {}),
  }
}

interface Findings {
  blockers: string[]
  warnings: string[]
}

/** Each network's character limit; Mastodon's is the smallest of the targeted instances' (500 when none is). */
function reportedLimits(targets: PlannedTarget[]): Record<Network, number> {
  const limits = { ...reportedTextLimits }
  const mastodon = targets.filter((t) => t.connection.platform === 'mastodon')
  if (mastodon.length > 0) limits.mastodon = Math.min(...mastodon.map((t) => rulesOf(t.connection).textLimit))
  return limits
}

/**
 * One chosen profile's post: its copy, media, YouTube details, thread and first comment, each from the
 * most specific place given (its request, its profile's or network's variant, the shared field).
 */
function planTarget(
  input: PlanInput,
  { connection, request }: { connection: ConnectionInfo; request?: TargetRequest },
  blockers: string[],
): PlannedTarget {
  const overrides: TargetOverrides = {}
  if (request?.content !== undefined) overrides.content = request.content
  const ownMedia = request?.mediaUrls ?? (request?.mediaUrl ? [request.mediaUrl] : undefined)
  if (ownMedia) overrides.mediaUrls = ownMedia
  if (request?.youtube) overrides.youtube = request.youtube
  if (request?.tiktok) overrides.tiktok = request.tiktok
  if (request?.pinterest) overrides.pinterest = request.pinterest
  if (request?.mastodon) overrides.mastodon = request.mastodon
  const content = resolveCopy(connection, overrides.content, input.variants ?? {}, input.content)
  const mediaUrls = resolveMedia(overrides, input)
  const youtube =
    connection.platform === 'youtube'
      ? resolveYouTubeDetails(content, { ...input.youtube, ...overrides.youtube })
      : null
  const googlebusiness =
    connection.platform === 'googlebusiness' ? resolveGoogleBusiness(input.googlebusiness) : null
  const tiktok = connection.platform === 'tiktok' ? { ...input.tiktok, ...overrides.tiktok } : null
  const pinterest =
    connection.platform === 'pinterest'
      ? resolvePinterestDetails({ ...input.pinterest, ...overrides.pinterest })
      : null
  const mastodon =
    connection.platform === 'mastodon'
      ? (resolveMastodonOptions(input.mastodon, overrides.mastodon) ?? null)
      : null
  const key = `${connection.platform}:${connection.profileId}`
  const ownThread =
    request?.thread ?? input.threadVariants?.[key] ?? input.threadVariants?.[connection.platform]
  const thread = ownThread ?? input.thread
  const ownFirstComment =
    request?.firstComment ??
    input.firstCommentVariants?.[key] ??
    input.firstCommentVariants?.[connection.platform]
  const firstComment = ownFirstComment ?? input.firstComment
  // A thread named for this profile or network that the network cannot take is refused; the shared one
  // is left out of such networks with a warning (checkSharedThread).
  if (ownThread && ownThread.length > 0 && !takesThreads(connection.platform))
    blockers.push(
      `${request?.thread ? 'targetAccounts[].thread' : 'threadVariants'}: ${label(connection)}: ${connection.platform} takes no threads (only ${threadNetworks.join(', ')})`,
    )
  if (ownFirstComment && !takesFirstComments(connection.platform))
    blockers.push(
      `${request?.firstComment ? 'targetAccounts[].firstComment' : 'firstCommentVariants'}: ${label(connection)}: ${connection.platform} takes no first comments`,
    )
  const items = deliveryItems(connection.platform, thread, firstComment)
  const postItems: PostItems = {
    ...(thread && thread.length > 0 && takesThreads(connection.platform) ? { thread } : {}),
    ...(firstComment && takesFirstComments(connection.platform) ? { firstComment } : {}),
  }
  const altTexts = altTextsFor(sentUrls({ mediaUrls, items }), input.mediaAltTexts)
  return {
    connection,
    overrides,
    content,
    mediaUrls,
    altTexts,
    youtube,
    googlebusiness,
    tiktok,
    pinterest,
    mastodon,
    items,
    postItems,
  }
}

/** Every media URL a target sends: its own set, then its thread items' and first comment's. */
export const sentUrls = (target: Pick<PlannedTarget, 'mediaUrls' | 'items'>) => [
  ...target.mediaUrls,
  ...target.items.flatMap((item) => item.mediaUrls),
]

/** The shared thread is left out where a network takes none, and refused when no profile takes it. */
function checkSharedThread(input: PlanInput, targets: PlannedTarget[], { blockers, warnings }: Findings) {
  if (!input.thread || input.thread.length === 0) return
  const without = targets.filter((t) => !takesThreads(t.connection.platform))
  if (without.length === targets.length && targets.length > 0)
    blockers.push(
      `thread: none of the profiles takes a thread (${without.map((t) => label(t.connection)).join(', ')}); threads go to ${threadNetworks.join(', ')}`,
    )
  else
    for (const t of without)
      warnings.push(
        takesFirstComments(t.connection.platform)
          ? `${label(t.connection)}: ${t.connection.platform} takes no threads; the thread is left out there (first comments go to every network)`
          : `${label(t.connection)}: ${t.connection.platform} takes no threads; the thread is left out there`,
      )
}

/** The shared first comment is left out where a network posts none (TikTok, Pinterest, Google Business Profile), with a warning. */
function checkSharedFirstComment(input: PlanInput, targets: PlannedTarget[], warnings: string[]) {
  if (!input.firstComment) return
  for (const t of targets)
    if (!takesFirstComments(t.connection.platform) && !t.items.some((i) => i.role === 'firstComment'))
      warnings.push(
        `${label(t.connection)}: ${t.connection.platform} takes no first comments; the first comment is left out there`,
      )
}

/** One target against its network's rules: connection, copy, media, thread items, video title, set. */
function checkTarget(target: PlannedTarget, findings: Findings, tiktokCreators: PlanInput['tiktokCreators']) {
  const { connection, mediaUrls } = target
  const { blockers } = findings
  const who = label(connection)
  if (connection.status === 'needs_reconnect')
    blockers.push(`${who} needs to be reconnected before it can publish`)
  checkCopy(target, who, findings)
  blockers.push(...attachmentBlockers(target, who))
  blockers.push(
    ...itemBlockers(connection.platform, who, target.items, {
      rules: rulesOf(connection),
      lengthOf: (text) => lengthFor(connection, text, target.mastodon),
    }),
  )
  if (target.youtube && target.youtube.title === '')
    blockers.push(`${who}: the video needs a title (give youtube.title or a first line of copy)`)
  if (target.googlebusiness) blockers.push(...googleBusinessBlockers(target.googlebusiness, who))
  if (target.pinterest)
    blockers.push(...pinterestDetailBlockers(who, target.pinterest, { count: mediaUrls.length }))
  if (mediaUrls.length > 1) blockers.push(...setBlockers(target, who))
  if (target.tiktok) {
    const videos = mediaUrls.filter(looksLikeVideo).length
    const tiktok = tiktokFindings(who, target.tiktok, tiktokCreators?.get(connection.id), {
      photos: mediaUrls.length - videos,
    })
    blockers.push(...tiktok.blockers)
    findings.warnings.push(...tiktok.warnings)
  }
}

/** The copy's length as the network counts it, and its hashtags and mentions where the network caps them. */
function checkCopy(
  { connection, content, mediaUrls, mastodon }: PlannedTarget,
  who: string,
  { blockers, warnings }: Findings,
) {
  const rules = rulesOf(connection)
  const length = lengthFor(connection, content, mastodon)
  const video = rules.videoTextLimit !== undefined && mediaUrls.some(looksLikeVideo)
  const limit = video ? (rules.videoTextLimit as number) : rules.textLimit
  if (length > limit)
    blockers.push(
      connection.platform === 'mastodon'
        ? `${who}: the copy is ${length} characters${mastodon?.contentWarning ? ' with its content warning' : ''}; the instance allows ${limit}`
        : `${who}: the copy is ${length} characters; ${connection.platform} allows ${limit}${video ? ' for a video' : ''}`,
    )
  else if (rules.textWarning && length > rules.textWarning.at) {
    warnings.push(`${who}: the copy is ${length} characters; ${rules.textWarning.message}`)
  }
  if (rules.captionLimits) {
    const hashtags = countHashtags(content)
    const mentions = countMentions(content)
    if (hashtags > rules.captionLimits.hashtags)
      blockers.push(
        `${who}: the caption has ${hashtags} hashtags; ${connection.platform} allows ${rules.captionLimits.hashtags}`,
      )
    if (mentions > rules.captionLimits.mentions)
      blockers.push(
        `${who}: the caption has ${mentions} @mentions; ${connection.platform} allows ${rules.captionLimits.mentions}`,
      )
  }
}

/** Something to publish, and the media a network requires (YouTube: a video). */
function attachmentBlockers(
  { connection, content, mediaUrls, googlebusiness }: PlannedTarget,
  who: string,
): string[] {
  const rules = networkRules[connection.platform]
  const blockers: string[] = []
  if (content.trim() === '' && mediaUrls.length === 0 && !titleAlone(googlebusiness))
    blockers.push(`${who}: nothing to publish (no copy and no media)`)
  if (rules.requiresMedia && mediaUrls.length === 0) {
    blockers.push(
      connection.platform === 'youtube'
        ? `${who}: YouTube Shorts needs a video (mediaUrl)`
        : `${who}: ${connection.platform} requires media`,
    )
  }
  if (rules.noVideo && mediaUrls.some(looksLikeVideo))
    blockers.push(`${who}: ${mediaUrls.find(looksLikeVideo)} looks like a video; ${rules.noVideo}`)
  if (rules.requiresVideo && mediaUrls.length > 0 && !mediaUrls.every(looksLikeVideo)) {
    blockers.push(
      `${who}: YouTube Shorts needs a video; ${mediaUrls.find((u) => !looksLikeVideo(u))} does not look like one (mp4, mov, webm)`,
    )
  }
  return blockers
}

/** A set of several attachments against the network's size limits and its rule on mixing in video. */
function setBlockers({ connection, mediaUrls }: PlannedTarget, who: string): string[] {
  const rules = rulesOf(connection)
  if (rules.noSets) return [`${who}: ${mediaUrls.length} attachments; ${rules.noSets}`]
  const blockers: string[] = []
  if (mediaUrls.length > rules.maxMedia)
    blockers.push(
      `${who}: ${mediaUrls.length} attachments; ${connection.platform} takes at most ${rules.maxMedia}`,
    )
  if (mediaUrls.length < rules.minSetMedia)
    blockers.push(`${who}: ${connection.platform} needs at least ${rules.minSetMedia} items in a set`)
  if (!rules.mixesVideoInSet && mediaUrls.some(looksLikeVideo))
    blockers.push(`${who}: ${connection.platform} does not mix video into a set of several`)
  return blockers
}

/** The largest attachment set and the set limits of each network that gets one (undefined: no sets). */
function mediaSets(targets: PlannedTarget[]) {
  let mediaCount: number | undefined
  const mediaSetLimits: Partial<Record<Network, MediaSetLimit>> = {}
  for (const { connection, mediaUrls } of targets) {
    if (mediaUrls.length <= 1) continue
    const rules = rulesOf(connection)
    mediaCount = Math.max(mediaCount ?? 0, mediaUrls.length)
    mediaSetLimits[connection.platform] = {
      min: rules.minSetMedia,
      max: rules.maxMedia,
      mixesVideo: rules.mixesVideoInSet,
    }
  }
  return { mediaCount, mediaSetLimits }
}
