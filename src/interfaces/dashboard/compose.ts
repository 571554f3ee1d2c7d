import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { resolveGoogleBusiness } from '../../core/googlebusiness-details.js'
import { type MastodonVisibility, mastodonVisibilities } from '../../core/mastodon-options.js'
import { looksLikeVideo } from '../../core/network-rules.js'
import { isNetwork, type Network } from '../../core/networks.js'
import { type ConnectionInfo, resolveCopy } from '../../core/post-plan.js'
import { lengthOn, mastodonLength } from '../../core/text-length.js'
import { deliveryItems, itemLabel, itemLimit } from '../../core/thread-items.js'
import { type PrivacyStatus, resolveYouTubeDetails } from '../../core/youtube-details.js'
import type { AppContext } from '../../modules/app-context.js'
import { avatarPaths } from '../../modules/connections/avatars.js'
import { detectType } from '../../modules/media/detect-type.js'
import { createPosterFrames } from '../../modules/media/poster-frame.js'
import { readCreatorOptions } from '../../modules/publishing/creator-options.js'
import { listQueues } from '../../modules/publishing/posting-queues.js'
import { httpStatusFor, toAppError } from '../../platform/errors.js'
import { type FormBody, firstValue } from '../../platform/form.js'
import type { ToolResult } from '../tools/registry.js'
import type { ToolRunner } from '../tools/runner.js'
import { type Tools, toolsAs } from './caller.js'
import { type Checked, checkHtml, fieldNotes, problemHtml, tabStates } from './compose-findings.js'
import {
  emptyGoogleBusinessDraft,
  googleBusinessArguments,
  readGoogleBusinessDraft,
} from './compose-googlebusiness.js'
import {
  emptyPinterestDraft,
  pinterestDetails,
  readPinterestDraft,
  targetsPinterest,
} from './compose-pinterest.js'
import { type LinkCard, type PreviewMedia, type PreviewTarget, previewHtml } from './compose-previews.js'
import { disclosureProblem, emptyTikTokDraft, readTikTokDraft, tiktokArguments } from './compose-tiktok.js'
import {
  type Account,
  type ComposeView,
  composePage,
  type Draft,
  type PickerProfile,
  PRIVACY_LABELS,
  posterPath,
  priceLine,
  UPLOAD_TYPES,
  type When,
} from './compose-view.js'
import { sendHtml } from './html.js'
import { createLinkCards } from './link-cards.js'
import type { SignedIn } from './request.js'
import { type RouteGuard, scriptUpload, signedInRoutes } from './sign-in-guard.js'
import { ReceivedUpload } from './upload-body.js'

/**
 * Compose: the copy, the profiles, media by URL or upload, copy per network or per profile, the thread and
 * first comment, YouTube details, Google Business Profile details and when (now, a date and time, or the queue). The check is live:
 * /compose/preflight runs preflight_post as the signed-in person and answers the counts, blockers, warnings,
 * cost and a preview per profile, each note placed by its field; "Publish now", "Schedule" and "Add to queue"
 * run create_post. Both are the tools an agent calls; nothing here decides what may be posted.
 */

export { UPLOAD_TYPES }

type Preflight = ToolResult<'preflight_post'>

const list = (body: FormBody, name: string) => {
  const value = body[name]
  return value === undefined ? [] : Array.isArray(value) ? value : [value]
}
const one = (body: FormBody, name: string) => list(body, name)[0] ?? ''

/** Alt text keyed `alt:<media URL>`; empty fields are no alt text. */
function readAltTexts(body: FormBody): Draft['altTexts'] {
  const altTexts: Draft['altTexts'] = {}
  for (const key of Object.keys(body))
    if (key.startsWith('alt:') && one(body, key).trim()) altTexts[key.slice('alt:'.length)] = one(body, key)
  return altTexts
}

/** Copy keyed `variant_<network>` or `variant_<network>:<profileId>`; empty fields are no variant. */
function readVariants(body: FormBody): Draft['variants'] {
  const variants: Draft['variants'] = {}
  for (const key of Object.keys(body)) {
    if (!key.startsWith('variant_')) continue
    const name = key.slice('variant_'.length)
    const [network, ...profile] = name.split(':')
    const valid = isNetwork(network ?? '') && (profile.length === 0 || profile.join(':') !== '')
    if (valid && one(body, key).trim()) variants[name] = one(body, key)
  }
  return variants
}

const WHENS: readonly When[] = ['now', 'schedule', 'queue']
const isWhen = (value: string): value is When => (WHENS as readonly string[]).includes(value)

/**
 * When the post goes: the button pressed; for the live check and the preview button, a date and time given
 * mean Schedule (so the check looks at that time), and none mean now.
 */
function whenOf(body: FormBody): When {
  const intent = one(body, 'intent')
  if (isWhen(intent)) return intent
  const asked = one(body, 'when')
  if (isWhen(asked)) return asked
  return one(body, 'date') && one(body, 'time') ? 'schedule' : 'now'
}

function readDraft(body: FormBody): Draft {
  const youtubePrivacy =
    one(body, 'youtubePrivacy') in PRIVACY_LABELS ? one(body, 'youtubePrivacy') : 'private'
  return {
    content: one(body, 'content'),
    profiles: list(body, 'profile'),
    mediaUrls: one(body, 'mediaUrls'),
    altTexts: readAltTexts(body),
    variants: readVariants(body),
    youtubeTitle: one(body, 'youtubeTitle'),
    youtubeDescription: one(body, 'youtubeDescription'),
    youtubePrivacy,
    youtubeConfirmed: one(body, 'youtubeConfirm') === youtubePrivacy,
    tiktok: readTikTokDraft((name) => one(body, name)),
    ...readPinterestDraft(one, body),
    mastodonVisibility: (mastodonVisibilities as readonly string[]).includes(one(body, 'mastodonVisibility'))
      ? one(body, 'mastodonVisibility')
      : 'public',
    mastodonWarning: one(body, 'mastodonWarning'),
    mastodonLanguage: one(body, 'mastodonLanguage').trim().toLowerCase(),
    when: whenOf(body),
    date: one(body, 'date'),
    time: one(body, 'time'),
    timezone: one(body, 'timezone') || 'UTC',
    thread: readThread(body),
    firstComment: one(body, 'firstComment'),
    googlebusiness: readGoogleBusinessDraft((name) => one(body, name)),
  }
}

/** The thread's posts in order (`threadContent` and `threadMedia` side by side); empty ones are left out. */
function readThread(body: FormBody): Draft['thread'] {
  const contents = list(body, 'threadContent')
  const media = list(body, 'threadMedia')
  return contents
    .map((content, i) => ({ content, mediaUrls: media[i] ?? '' }))
    .filter((item) => item.content.trim() !== '' || item.mediaUrls.trim() !== '')
}

const urlsOf = (text: string) =>
  text
    .split(/\s+/)
    .map((u) => u.trim())
    .filter(Boolean)

const mediaList = (draft: Draft) =>
  draft.mediaUrls
    .split(/\s+/)
    .map((u) => u.trim())
    .filter(Boolean)
const targetsYouTube = (draft: Draft) => draft.profiles.some((p) => p.startsWith('youtube:'))
const targetsGoogleBusiness = (draft: Draft) => draft.profiles.some((p) => p.startsWith('googlebusiness:'))
const targetsTikTok = (draft: Draft) => draft.profiles.some((p) => p.startsWith('tiktok:'))
const youtubeDetails = (draft: Draft) => ({
  ...(draft.youtubeTitle.trim() ? { title: draft.youtubeTitle } : {}),
  ...(draft.youtubeDescription.trim() ? { description: draft.youtubeDescription } : {}),
  privacyStatus: draft.youtubePrivacy as PrivacyStatus,
})

const targetsMastodon = (draft: Draft) => draft.profiles.some((p) => p.startsWith('mastodon:'))
const mastodonDetails = (draft: Draft) => ({
  visibility: draft.mastodonVisibility as MastodonVisibility,
  ...(draft.mastodonWarning.trim() ? { contentWarning: draft.mastodonWarning } : {}),
  ...(draft.mastodonLanguage ? { language: draft.mastodonLanguage } : {}),
})

/** A copy's count on its network: on Mastodon with the content warning, which the instance counts with it. */
const countOn = (draft: Draft, platform: Network, copy: string) =>
  platform === 'mastodon' && targetsMastodon(draft)
    ? mastodonLength(copy, mastodonDetails(draft).contentWarning ?? '')
    : lengthOn(platform, copy)

/** The tools' arguments for a draft (the same for preflight_post and create_post). */
function toolArguments(draft: Draft) {
  const targetAccounts = draft.profiles.map((key) => {
    const [platform = '', ...rest] = key.split(':')
    // A form can send any word: the tool's own schema refuses one that names no network, as it would an agent's.
    return { platform: platform as Network, profileId: rest.join(':') }
  })
  const mediaUrls = mediaList(draft)
  // The alt texts of the images still in the tray: a field left from an image removed is not sent.
  const used = new Set([...mediaUrls, ...draft.thread.flatMap((item) => urlsOf(item.mediaUrls))])
  const altTexts = Object.fromEntries(Object.entries(draft.altTexts).filter(([url]) => used.has(url)))
  return {
    content: draft.content,
    targetAccounts,
    ...(mediaUrls.length ? { mediaUrls } : {}),
    ...(Object.keys(altTexts).length ? { mediaAltTexts: altTexts } : {}),
    ...(Object.keys(draft.variants).length ? { variants: draft.variants } : {}),
    ...(draft.thread.length
      ? {
          thread: draft.thread.map((item) => ({
            content: item.content,
            ...(urlsOf(item.mediaUrls).length ? { mediaUrls: urlsOf(item.mediaUrls) } : {}),
          })),
        }
      : {}),
    ...(draft.firstComment.trim() ? { firstComment: draft.firstComment } : {}),
    ...(targetsYouTube(draft) ? { youtube: youtubeDetails(draft) } : {}),
    ...(targetsGoogleBusiness(draft)
      ? { googlebusiness: googleBusinessArguments(draft.googlebusiness) }
      : {}),
    ...(targetsTikTok(draft) ? { tiktok: tiktokArguments(draft.tiktok) } : {}),
    ...(targetsPinterest(draft.profiles) && Object.keys(pinterestDetails(draft)).length
      ? { pinterest: pinterestDetails(draft) }
      : {}),
    ...(targetsMastodon(draft) ? { mastodon: mastodonDetails(draft) } : {}),
    ...(draft.when === 'now'
      ? { publishImmediately: true, timezone: draft.timezone }
      : draft.when === 'queue'
        ? { queue: true }
        : { scheduleDate: draft.date, scheduleTime: draft.time, timezone: draft.timezone }),
  }
}

/** A target's copy, by the domain's own rule (its profile's copy, its network's, or the shared one). */
const copyOf = (draft: Draft, target: Preflight['resolvedTargets'][number]) => {
  const connection: ConnectionInfo = { id: '', status: 'active', ...target }
  return resolveCopy(connection, undefined, draft.variants, draft.content)
}

/**
 * What preflight_post says about a draft, with each target's copy (resolved by the domain's own rule)
 * counted as Herald counts it on that network, and the preview of each target.
 */
function readPreflight(
  app: AppContext,
  draft: Draft,
  preflight: Preflight,
  extra: {
    accounts: Array<Account & { avatar?: string | undefined }>
    links: Map<string, LinkCard | undefined>
    mediaPrefix: string
  },
) {
  const prefix = extra.mediaPrefix
  const mediaOf = (urls: string[]): PreviewMedia[] =>
    urls.map((url) => {
      const video = looksLikeVideo(url)
      const hosted = app.media.isHostedUrl(url)
      const poster = video && hosted ? posterPath(url, prefix) : undefined
      const altText = draft.altTexts[url]?.trim() ? draft.altTexts[url] : undefined
      return {
        url,
        video,
        ...(hosted ? { src: new URL(url).pathname } : {}),
        ...(poster ? { poster } : {}),
        ...(altText && !video ? { altText } : {}),
      }
    })
  const media = mediaOf(mediaList(draft))
  const targets = preflight.resolvedTargets.map((t) => ({ ...t, copy: copyOf(draft, t) }))
  // Each target's thread posts and first comment, counted and previewed as its network takes them.
  const itemsOf = (platform: Network) =>
    deliveryItems(
      platform,
      draft.thread.map((item) => ({ content: item.content, mediaUrls: urlsOf(item.mediaUrls) })),
      draft.firstComment.trim() ? draft.firstComment : undefined,
    )
  const checked: Checked = {
    ok: preflight.ok,
    counts: targets.flatMap((t) => {
      const items = itemsOf(t.platform)
      return [
        {
          platform: t.platform,
          profileId: t.profileId,
          username: t.username,
          count: countOn(draft, t.platform, t.copy),
          limit: preflight.limits[t.platform],
        },
        ...items.map((item, i) => ({
          platform: t.platform,
          profileId: t.profileId,
          username: t.username,
          count: countOn(draft, t.platform, item.content),
          limit: t.platform === 'mastodon' ? preflight.limits.mastodon : itemLimit(t.platform, item.role),
          what: itemLabel(item, i, items),
        })),
      ]
    }),
    blockers: preflight.blockers,
    warnings: preflight.warnings,
    credits: preflight.credits,
  }
  const preview: PreviewTarget[] = targets.map((t) => ({
    platform: t.platform,
    username: t.username,
    name: extra.accounts.find((a) => a.platform === t.platform && a.profileId === t.profileId)?.name ?? '',
    avatar: extra.accounts.find((a) => a.platform === t.platform && a.profileId === t.profileId)?.avatar,
    ...(extra.links.get(t.copy) ? { link: extra.links.get(t.copy) } : {}),
    copy: t.copy,
    media,
    youtube: t.platform === 'youtube' ? resolveYouTubeDetails(t.copy, youtubeDetails(draft)) : null,
    googlebusiness:
      t.platform === 'googlebusiness'
        ? resolveGoogleBusiness(googleBusinessArguments(draft.googlebusiness))
        : null,
    ...(t.platform === 'tiktok' ? { tiktok: tiktokArguments(draft.tiktok) } : {}),
    ...(t.platform === 'pinterest' ? { pinterest: pinterestDetails(draft) } : {}),
    ...(t.platform === 'mastodon' && mastodonDetails(draft).contentWarning
      ? { contentWarning: mastodonDetails(draft).contentWarning }
      : {}),
    items: itemsOf(t.platform).map((item, i, all) => ({
      label: itemLabel(item, i, all).replace(/^./, (c) => c.toUpperCase()),
      copy: item.content,
      media: mediaOf(item.mediaUrls),
    })),
  }))
  return { checked, preview }
}

const confirmationMessage = (draft: Draft) =>
  `Confirm that this video will be ${PRIVACY_LABELS[draft.youtubePrivacy]} on YouTube, then create the post.`

/** The live check is the page script's: a refused one is the check's JSON, shown where the check goes. */
const preflightForm: RouteGuard = {
  refuse: (reply, why) =>
    reply
      .code(why === 'signedOut' ? 401 : 403)
      .header('cache-control', 'no-store')
      .send({
        ok: false,
        checkHtml: problemHtml(
          why === 'signedOut' ? 'you are signed out; sign in again.' : 'this page expired; reload it.',
        ),
      }),
}

/** A profile and Herald's path of its kept picture. */
type PictureAccount = Account & { avatar?: string | undefined }

/** The workspace's profiles with the pictures Herald keeps of them, for the previews' heads. */
async function accountsWithPictures(app: AppContext, run: Tools, who: SignedIn) {
  const [accounts, pictures] = await Promise.all([
    run(who, 'get_connected_accounts', {}),
    avatarPaths(app.store.db, who.workspace.id),
  ])
  return accounts.map((a) => ({ ...a, avatar: pictures.get(`${a.platform}:${a.profileId}`) }))
}

/**
 * The profiles to pick from: each live connection with its health, its queue's next free time, and for a
 * TikTok creator what TikTok lets them choose now (the privacy levels, the switches they turned off).
 */
async function pickerProfiles(app: AppContext, run: Tools, who: SignedIn) {
  const [accounts, health, queues, pictures] = await Promise.all([
    run(who, 'get_connected_accounts', {}),
    run(who, 'get_account_health', {}),
    listQueues(app.store.db, who.workspace.id, app.clock.now(), 1),
    avatarPaths(app.store.db, who.workspace.id),
  ])
  const creators = await tiktokCreators(app, who, accounts)
  return accounts.map((a): PickerProfile => {
    const ailing = health.connections.find((c) => c.platform === a.platform && c.profileId === a.profileId)
    const next = queues.find((q) => q.platform === a.platform && q.profileId === a.profileId)?.next[0]
    return {
      ...a,
      avatar: pictures.get(`${a.platform}:${a.profileId}`),
      health: ailing
        ? { tone: 'warn', words: `Expires in ${ailing.daysLeft} day${ailing.daysLeft === 1 ? '' : 's'}` }
        : { tone: 'ok', words: 'Connected' },
      ...(next ? { nextSlot: `${next.scheduleDate} ${next.scheduleTime} ${next.timezone}` } : {}),
      ...(creators.get(`${a.platform}:${a.profileId}`)
        ? { creator: creators.get(`${a.platform}:${a.profileId}`) }
        : {}),
    }
  })
}

/** The TikTok creators' options by `tiktok:<profileId>`, read as preflight reads them (best effort). */
async function tiktokCreators(app: AppContext, who: SignedIn, accounts: Account[]) {
  const tiktok = accounts.filter((a) => a.platform === 'tiktok')
  if (tiktok.length === 0) return new Map()
  const rows = await app.store.db
    .selectFrom('connections')
    .select(['id', 'profile_id', 'username', 'status'])
    .where('workspace_id', '=', who.workspace.id)
    .where('platform', '=', 'tiktok')
    .where('status', '=', 'active')
    .execute()
  const read = await readCreatorOptions(
    app,
    who.workspace.id,
    rows.map((r) => ({
      id: r.id,
      platform: 'tiktok' as const,
      profileId: r.profile_id,
      username: r.username,
      status: r.status,
    })),
  )
  return new Map(
    rows.flatMap((r) => (read.get(r.id) ? [[`tiktok:${r.profile_id}`, read.get(r.id)] as const] : [])),
  )
}

export function registerComposeRoutes(scope: FastifyInstance, app: AppContext, runner: ToolRunner) {
  const routes = signedInRoutes(scope)
  const run = toolsAs(runner)
  const cardFor = createLinkCards(app.media, () => app.clock.now())
  const mediaPrefix = `${app.config.publicBaseUrl.replace(/\/$/, '')}/media/`

  registerUploadRoute(scope, app)
  registerPosterRoute(scope, app)

  /** preflight_post for a draft, as the signed-in person, read into the check and the preview. */
  const checkDraft = async (who: SignedIn, draft: Draft, accounts: PictureAccount[]) => {
    const preflight = await run(who, 'preflight_post', toolArguments(draft))
    const copies = [...new Set(preflight.resolvedTargets.map((t) => copyOf(draft, t)))]
    const links = new Map(await Promise.all(copies.map(async (c) => [c, await cardFor(c)] as const)))
    return readPreflight(app, draft, preflight, { accounts, links, mediaPrefix })
  }

  // A free queue slot on the calendar opens Compose for that profile and time (?profile=&date=&time=&timezone=).
  routes.get<{ Querystring: Record<string, string | undefined> }>('/compose', async (request, reply, who) => {
    const profiles = await pickerProfiles(app, run, who)
    const [profile, date, time, timezone] = ['profile', 'date', 'time', 'timezone'].map((key) =>
      firstValue(request.query[key]),
    )
    const draft = emptyDraft()
    const slotGiven = Boolean(date && time)
    if (profile && profiles.some((a) => `${a.platform}:${a.profileId}` === profile))
      draft.profiles = [profile]
    if (slotGiven) Object.assign(draft, { when: 'schedule', date, time, timezone: timezone || 'UTC' })
    return sendHtml(
      reply,
      200,
      composePage({
        who,
        profiles,
        draft,
        fresh: !slotGiven,
        restoreDraft: !slotGiven && !profile,
        mediaPrefix,
      }),
    )
  })

  // The live check: the form as it stands (CSRF token included), answered as JSON for the page's script.
  routes.post('/compose/preflight', preflightForm, async (request, reply, who) => {
    const answer = (status: number, body: Record<string, unknown>) =>
      reply.code(status).header('cache-control', 'no-store').send(body)
    const draft = readDraft((request.body ?? {}) as FormBody)
    try {
      const { checked, preview } = await checkDraft(who, draft, await accountsWithPictures(app, run, who))
      return answer(200, {
        ...checked,
        checkHtml: checkHtml(checked),
        priceLine: priceLine(checked),
        fields: fieldNotes(checked),
        tabs: tabStates(checked),
        previewHtml: previewHtml(preview),
      })
    } catch (error) {
      const appError = toAppError(error)
      const status = httpStatusFor(appError.code)
      if (status >= 500) throw error
      return answer(status, {
        ok: false,
        problem: appError.message,
        checkHtml: problemHtml(appError.message),
        priceLine: 'Not ready: see the check by the buttons.',
        fields: {},
        tabs: {},
      })
    }
  })

  routes.post('/compose', async (request, reply, who) => {
    const body = (request.body ?? {}) as FormBody
    const draft = readDraft(body)
    const profiles = await pickerProfiles(app, run, who)
    const show = (status: number, more: Pick<ComposeView, 'checked' | 'preview' | 'problem'>) =>
      sendHtml(reply, status, composePage({ who, profiles, draft, fresh: false, mediaPrefix, ...more }))
    try {
      const { checked, preview } = await checkDraft(who, draft, profiles)
      // "Check and preview" and "Add to thread" (without the page's script) show the form again, checked.
      if (!isWhen(one(body, 'intent')) || !checked.ok) return show(200, { checked, preview })
      // The spec asks that a YouTube upload's visibility be confirmed before the post is created.
      if (targetsYouTube(draft) && !draft.youtubeConfirmed)
        return show(400, { checked, preview, problem: confirmationMessage(draft) })
      const disclosure = targetsTikTok(draft) ? disclosureProblem(draft.tiktok) : undefined
      if (disclosure) return show(400, { checked, preview, problem: disclosure })
      const created = await run(who, 'create_post', toolArguments(draft))
      const [first, ...others] = created.postIds
      return reply.redirect(others.length || !first ? '/posts' : `/posts/${encodeURIComponent(first)}`, 303)
    } catch (error) {
      const appError = toAppError(error)
      return show(httpStatusFor(appError.code), { problem: appError.message })
    }
  })
}

const emptyDraft = (): Draft => ({
  content: '',
  profiles: [],
  mediaUrls: '',
  altTexts: {},
  variants: {},
  youtubeTitle: '',
  youtubeDescription: '',
  youtubePrivacy: 'private',
  youtubeConfirmed: false,
  tiktok: emptyTikTokDraft(),
  ...emptyPinterestDraft(),
  mastodonVisibility: 'public',
  mastodonWarning: '',
  mastodonLanguage: '',
  when: 'now',
  date: '',
  time: '',
  timezone: 'UTC',
  thread: [],
  firstComment: '',
  googlebusiness: emptyGoogleBusinessDraft(),
})

/**
 * `GET /compose/poster/<id>/<name>`: the poster frame of a video Herald hosts, for the media tray and the
 * previews, to the signed-in members of the workspace that uploaded it (404 otherwise, or when no frame can
 * be made). A hosted file never changes under its address, so the browser may keep the poster.
 */
function registerPosterRoute(scope: FastifyInstance, app: AppContext) {
  const posters = createPosterFrames(app.media)
  const { get } = signedInRoutes(scope)
  const refuse: RouteGuard['refuse'] = (reply) =>
    reply.code(401).header('cache-control', 'no-store').send({ message: 'Sign in first.' })
  get<{ Params: { id: string; name: string } }>(
    '/compose/poster/:id/:name',
    { refuse },
    async (request, reply, who) => {
      const { id, name } = request.params
      const poster = await posters.posterOf(id, name, who.workspace.id)
      if (!poster)
        return reply.code(404).header('cache-control', 'no-store').send({ message: 'No poster frame.' })
      return reply
        .header('content-type', 'image/jpeg')
        .header('cache-control', 'private, max-age=86400')
        .send(poster)
    },
  )
}

/** Media uploaded from the compose page: stored now, its URL answered for the form. */
function registerUploadRoute(scope: FastifyInstance, app: AppContext) {
  const { post } = signedInRoutes(scope)
  // The file's bytes as the body, its type as the content type; the CSRF token travels in the query and was
  // checked, with the session, before the body was read (src/interfaces/dashboard/upload-body.ts). The stored type and
  // the file name's extension come from the bytes, never from what the browser claimed.
  post<{ Querystring: { name?: string } }>('/compose/upload', scriptUpload, async (request, reply, who) => {
    const upload = request.body
    const unsupported = () =>
      reply.code(415).send({ message: 'Upload an image (PNG, JPEG, GIF, WebP) or a video (MP4, MOV, WebM).' })
    if (!(upload instanceof ReceivedUpload) || upload.size === 0) return unsupported()
    const requested = firstValue(request.query.name) ?? 'upload'
    const detected = detectType(await upload.head(), path.extname(requested).toLowerCase())
    if (!detected || !UPLOAD_TYPES.includes(detected.contentType)) return unsupported()
    const stem = path
      .basename(requested, path.extname(requested))
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .slice(-72)
    const name = `${stem || 'upload'}.${detected.extension}`
    const staged = await app.media.stage({
      file: upload.file,
      contentType: detected.contentType,
      name,
      workspaceId: who.workspace.id,
    })
    try {
      await staged.commit(app.store.db)
    } catch (error) {
      await staged.discard()
      throw error
    }
    return reply.code(201).send({ url: staged.url })
  })
}
