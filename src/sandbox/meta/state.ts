import { randomBytes } from 'node:crypto'
import {
  type FetchCheck,
  type MetaSimulatorOptions,
  MetaSimulatorState,
  numericId,
  sniff,
} from '../meta-common/state.js'
import { inspectReceivedVideo, isH264, isHevc } from '../video-check.js'
import { avatarUrlUnder } from '../web/avatar-png.js'
import { loadMetaSpecs, type MetaSpecs } from './spec-validator.js'

/**
 * The state of the Meta simulator: Facebook users, their Pages and the Instagram professional accounts
 * linked to them (or standing alone, for Instagram Login), tokens, Page posts, photos and videos,
 * Instagram containers and media, the rolling 24-hour publishing allowance, injected faults, and the
 * "Meta fetcher" that really downloads every media URL it is given and checks the bytes.
 */

export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'read_insights',
  'business_management',
  'publish_video',
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_insights',
  'instagram_manage_comments',
] as const

export const INSTAGRAM_LOGIN_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_insights',
  'instagram_business_manage_comments',
] as const

export interface SandboxUser {
  id: string
  name: string
  pageIds: string[]
  /** Pages reached only through a business (`/me/businesses` → `owned_pages`). */
  businessPageIds: string[]
}
export interface SandboxPage {
  id: string
  name: string
  username: string
  followers: number
  igUserId?: string
}
export interface SandboxIgUser {
  id: string
  username: string
  name: string
  followers: number
  follows: number
  pageId?: string
}
export type TokenKind = 'user' | 'page' | 'ig'
export interface SandboxToken {
  token: string
  kind: TokenKind
  subjectId: string
  scopes: string[]
  /** Epoch ms; undefined: never expires (Page tokens from a long-lived user token). */
  expiresAt?: number
  longLived: boolean
  issuedAt: number
}
export interface FbPost {
  id: string
  pageId: string
  message: string
  link?: string
  attachedMedia: string[]
  createdAt: number
  kind: 'status' | 'photo' | 'album' | 'video'
}
export interface FbPhoto {
  id: string
  pageId: string
  url: string
  published: boolean
  postId?: string
  contentType: string
  /** The photo's alt text as the Page gave it (`alt_text_custom`). */
  altText?: string
}
export interface FbVideo {
  id: string
  createdAt: number
  pageId: string
  fileUrl: string
  description: string
  polls: number
  state: 'processing' | 'ready' | 'error'
  postId?: string
}
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED'
export interface IgContainer {
  id: string
  igUserId: string
  mediaType: 'IMAGE' | 'VIDEO' | 'REELS' | 'CAROUSEL'
  url?: string
  children: string[]
  caption: string
  isCarouselItem: boolean
  shareToFeed?: boolean
  createdAt: number
  /** Polls left before a fetched video reports FINISHED. */
  pollsLeft: number
  fetch?: Promise<FetchCheck>
  check?: FetchCheck
  status: ContainerStatus
  mediaId?: string
  /** An image container's alt text (`alt_text`). */
  altText?: string
}
/** A comment on a Facebook post, photo or video, or on an Instagram media (`POST /{object}/comments`). */
export interface MetaComment {
  id: string
  /** The post, photo, video or media it is on. */
  objectId: string
  network: 'facebook' | 'instagram'
  /** The Page or Instagram account that wrote it. */
  fromId: string
  message: string
  createdAt: number
}
export interface IgMedia {
  id: string
  igUserId: string
  caption: string
  mediaType: 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM'
  productType: 'FEED' | 'REELS'
  shortcode: string
  createdAt: number
  children: string[]
}
export type FaultOp =
  | 'feed'
  | 'photos'
  | 'videos'
  | 'media'
  | 'media_publish'
  | 'container_status'
  | 'insights'
  | 'token'
  | 'any'
export interface Fault {
  op: FaultOp
  /**
   * `error`: answer with the envelope. `drop_before`: close without doing anything. `drop_after`: do the
   * work, then close. `hang_before` / `hang_after`: never answer (before or after doing the work), as a
   * stalled network does, until the caller gives up or dies.
   */
  action: 'error' | 'drop_before' | 'drop_after' | 'hang_before' | 'hang_after'
  code?: number
  subcode?: number
  status?: number
  message?: string
  userMessage?: string
  /** Minutes in `estimated_time_to_regain_access` (rate limits). */
  regainMinutes?: number
}

export type { FetchCheck } from '../meta-common/state.js'

export interface MetaSandboxOptions extends MetaSimulatorOptions {
  /** The 24-hour publishing allowance per Instagram account (default 100). */
  quotaTotal?: number
  /** Page size of `/me/accounts` when the caller names no `limit` (default 25). */
  accountsPageSize?: number
  /** Graph calls the app may make in a rolling hour before code 4 (default 10,000). */
  appCallsPerHour?: number
  /** Validate every Graph call against Meta's spec files (default: when they are present). */
  specs?: MetaSpecs | false
}

export class MetaSandboxState extends MetaSimulatorState<MetaSandboxOptions, Fault> {
  readonly specs: MetaSpecs | undefined
  readonly users = new Map<string, SandboxUser>()
  readonly pages = new Map<string, SandboxPage>()
  readonly igUsers = new Map<string, SandboxIgUser>()
  readonly tokens = new Map<string, SandboxToken>()
  readonly codes = new Map<
    string,
    {
      userId: string
      scopes: string[]
      redirectUri: string
      flavour: 'facebook' | 'instagram'
      expiresAt: number
    }
  >()
  readonly posts = new Map<string, FbPost>()
  readonly photos = new Map<string, FbPhoto>()
  readonly videos = new Map<string, FbVideo>()
  readonly containers = new Map<string, IgContainer>()
  readonly media = new Map<string, IgMedia>()
  /** Comments by id, in the order they were made. */
  readonly comments = new Map<string, MetaComment>()
  readonly businesses = new Map<string, { id: string; name: string; ownerId: string; pageIds: string[] }>()
  /**
   * Facebook apps registered through the control surface, app id → app secret. An app id never registered
   * is taken with any secret (demo mode needs no setup); a registered one only with its own.
   */
  readonly apps = new Map<string, string>()
  /** Every Graph call as `METHOD node/edge` with its parameters (tokens left out). */
  readonly calls: { method: string; path: string; node?: string; params: Record<string, string> }[] = []

  constructor(options: MetaSandboxOptions) {
    super(options, 100)
    this.specs = options.specs === false ? undefined : (options.specs ?? loadMetaSpecs())
  }

  /** A Facebook user with one Page named `username` and an Instagram professional account linked to it. */
  ensureUser(username: string): SandboxUser {
    const existing = [...this.users.values()].find((u) => u.name === username)
    if (existing) return existing
    const user: SandboxUser = { id: numericId('10'), name: username, pageIds: [], businessPageIds: [] }
    this.users.set(user.id, user)
    const page = this.createPage(username)
    user.pageIds.push(page.id)
    const ig = this.createIgUser(username, page.id)
    page.igUserId = ig.id
    return user
  }

  createPage(name: string): SandboxPage {
    const page: SandboxPage = {
      id: numericId('1'),
      name,
      username: name.toLowerCase().replace(/[^a-z0-9.]/g, ''),
      followers: 1200,
    }
    this.pages.set(page.id, page)
    return page
  }

  createIgUser(username: string, pageId?: string): SandboxIgUser {
    const ig: SandboxIgUser = {
      id: numericId('1784'),
      username: username.toLowerCase().replace(/[^a-z0-9._]/g, ''),
      name: username,
      followers: 3400,
      follows: 210,
      ...(pageId ? { pageId } : {}),
    }
    this.igUsers.set(ig.id, ig)
    return ig
  }

  /** An Instagram professional account without a Page (Instagram Login). */
  ensureIgOnlyUser(username: string): SandboxIgUser {
    const existing = [...this.igUsers.values()].find((u) => u.username === username && !u.pageId)
    return existing ?? this.createIgUser(username)
  }

  issueToken(
    kind: TokenKind,
    subjectId: string,
    scopes: string[],
    ttlSeconds: number | undefined,
    longLived: boolean,
  ): SandboxToken {
    const prefix = kind === 'ig' ? 'IGAA' : 'EAAB'
    const token: SandboxToken = {
      token: `${prefix}${randomBytes(24).toString('base64url')}`,
      kind,
      subjectId,
      scopes,
      longLived,
      issuedAt: this.now(),
      ...(ttlSeconds === undefined ? {} : { expiresAt: this.now() + ttlSeconds * 1000 }),
    }
    this.tokens.set(token.token, token)
    return token
  }

  issueCode(
    userId: string,
    scopes: string[],
    redirectUri: string,
    flavour: 'facebook' | 'instagram',
  ): string {
    const code = `AQ${randomBytes(18).toString('base64url')}`
    this.codes.set(code, { userId, scopes, redirectUri, flavour, expiresAt: this.now() + 10 * 60_000 })
    return code
  }

  /** The token if it is known and not expired. */
  tokenInfo(token: string | undefined): SandboxToken | undefined {
    if (!token) return undefined
    const info = this.tokens.get(token)
    if (!info) return undefined
    if (info.expiresAt !== undefined && info.expiresAt <= this.now()) return undefined
    return info
  }

  revoke(token: string): void {
    this.tokens.delete(token)
  }

  /** Where permalinks lead: the simulator's own pages when it knows its public address (sandbox mode). */
  /**
   * A Page's or an Instagram account's picture: served by the simulator under its web pages when it knows
   * where it is reached (as Meta's CDN serves them), else a CDN-like address nothing answers.
   */
  pictureUrl(site: 'facebook' | 'instagram', id: string): string {
    if (this.options.publicUrl) return avatarUrlUnder(this.webUrl(site), id)
    return site === 'facebook'
      ? `https://scontent.facebook.invalid/${id}.jpg`
      : `https://scontent.cdninstagram.invalid/${id}.jpg`
  }

  webUrl(site: 'facebook' | 'instagram'): string {
    return site === 'facebook'
      ? this.webBase('/facebook', 'https://www.facebook.com')
      : this.webBase('/instagram', 'https://www.instagram.com')
  }

  /** Queues a fault for the next call of `op`. */
  failNext(fault: Fault): void {
    this.faults.push(fault)
  }

  /** The node type of an id, as Meta's spec files name it (for the validator). */
  nodeOf(id: string, host: 'facebook' | 'instagram'): string | undefined {
    if (this.pages.has(id)) return 'Page'
    if (this.posts.has(id)) return 'PagePost'
    if (this.photos.has(id)) return 'Photo'
    if (this.videos.has(id)) return 'AdVideo'
    if (this.containers.has(id)) return 'ShadowIGMediaBuilder'
    if (this.igUsers.has(id)) return host === 'instagram' ? 'IGUserForIGOnlyAPI' : 'IGUser'
    if (this.media.has(id)) return host === 'instagram' ? 'IGMediaForIGOnlyAPI' : 'IGMedia'
    return undefined
  }

  private appCalls: number[] = []

  /** Counts one Graph call; the app's usage of its rolling-hour allowance in percent (as `X-App-Usage`). */
  recordAppCall(): number {
    const since = this.now() - 60 * 60 * 1000
    this.appCalls = this.appCalls.filter((t) => t > since)
    this.appCalls.push(this.now())
    return Math.min(100, Math.floor((100 * this.appCalls.length) / (this.options.appCallsPerHour ?? 10_000)))
  }

  /** Facebook posts of a Page and Instagram media of an account, newest first. */
  pagePosts(pageId: string): FbPost[] {
    return [...this.posts.values()]
      .filter((p) => p.pageId === pageId)
      .sort((a, b) => b.createdAt - a.createdAt)
  }
  igMediaOf(igUserId: string): IgMedia[] {
    return [...this.media.values()]
      .filter((m) => m.igUserId === igUserId)
      .sort((a, b) => b.createdAt - a.createdAt)
  }

  /**
   * The Meta fetcher: downloads `url` as Meta's crawler would (no credentials, no redirects followed),
   * reads the bytes and checks them against what the target takes. Recorded in {@link fetches}.
   */
  async fetchMedia(url: string, expect: 'ig_image' | 'fb_photo' | 'video'): Promise<FetchCheck> {
    let check: FetchCheck
    try {
      const response = await this.download(url)
      const { bytes, contentType } = response
      const sniffed = sniff(bytes)
      check = {
        ok: response.status === 200,
        url,
        status: response.status,
        bytes: bytes.length,
        format: sniffed.format,
        ...(contentType ? { contentType } : {}),
        ...(sniffed.width ? { width: sniffed.width, height: sniffed.height } : {}),
      }
      if (!check.ok)
        Object.assign(check, {
          subcode: 2207052,
          message: `The media could not be fetched from this URI (HTTP ${response.status})`,
        })
      else if (expect === 'ig_image') {
        if (sniffed.format !== 'jpeg')
          Object.assign(check, {
            ok: false,
            subcode: 2207005,
            message: 'The image format is not supported. Only JPEG is supported.',
          })
        else if (bytes.length > 8 * 1024 * 1024)
          Object.assign(check, {
            ok: false,
            subcode: 2207004,
            message: 'The image is too large to download. It should be less than 8 MiB.',
          })
        else if (sniffed.width && sniffed.height) {
          const ratio = sniffed.width / sniffed.height
          if (ratio < 0.8 - 1e-3 || ratio > 1.91 + 1e-3)
            Object.assign(check, {
              ok: false,
              subcode: 2207009,
              message:
                'The submitted image with aspect ratio is not supported. It must be between 4:5 and 1.91:1.',
            })
        }
      } else if (expect === 'fb_photo') {
        if (sniffed.format !== 'jpeg' && sniffed.format !== 'png')
          Object.assign(check, {
            ok: false,
            subcode: 1366046,
            message: 'Photos should be smaller than 4 MB and saved as JPG, PNG',
          })
        else if (bytes.length > 4 * 1024 * 1024)
          Object.assign(check, {
            ok: false,
            subcode: 1366046,
            message: 'Photos should be smaller than 4 MB and saved as JPG, PNG',
          })
      } else {
        // Meta ingests MP4/MOV with H.264 or HEVC video; anything else is 2207026.
        const video = inspectReceivedVideo(bytes)
        if (video.ok) check.videoCodec = video.codec
        if (!video.ok || !(isH264(video.codec) || isHevc(video.codec)))
          Object.assign(check, { ok: false, subcode: 2207026, message: 'The video format is not supported.' })
      }
    } catch (error) {
      check = {
        ok: false,
        url,
        bytes: 0,
        subcode: 2207052,
        message: `The media could not be fetched from this URI (${(error as Error).message})`,
      }
    }
    this.fetches.push(check)
    return check
  }
}
