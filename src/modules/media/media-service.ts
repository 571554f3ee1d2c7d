import { rm } from 'node:fs/promises'
import path from 'node:path'
import { MediaError, type MediaPort, type PreparedMedia } from '../../core/media-port.js'
import { urlExtension, withExtension } from '../../core/media-url.js'
import { fetchCeiling, type NetworkMediaRules, networkMediaRules } from '../../core/network-rules.js'
import type { Network } from '../../core/networks.js'
import type { Config } from '../../platform/config.js'
import type { Db } from '../../platform/db/db.js'
import {
  createSafeFetcher,
  type FetchedFile,
  type FetchOptions,
  type SafeFetcher,
  type SafeFetcherOptions,
} from '../../platform/egress/safe-fetch.js'
import type { Logger } from '../../platform/logger.js'
import { type MediaPlan, planMedia } from './conversion-plan.js'
import { type ConversionSlots, createConversionSlots } from './conversion-slots.js'
import { convertImage } from './convert.js'
import { convertVideo } from './convert-video.js'
import { detectType } from './detect-type.js'
import { type Ffmpeg, type FfmpegLookup, lookForFfmpeg } from './ffmpeg.js'
import { extractFirstFrame } from './first-frame.js'
import { createImageApiProvider } from './image-api.js'
import { createCardImageProvider } from './image-card.js'
import type { AspectRatio, GeneratedImage, ImageProvider } from './image-provider.js'
import { readLinkPreview } from './link-preview.js'
import { createMediaCache, type MediaCache } from './media-cache.js'
import {
  createMediaLibrary,
  type HostedMedia,
  type MediaLibrary,
  type StagedMedia,
  type StageInput,
} from './media-library.js'
import { type MediaInfo, probeFile } from './probe.js'
import { hostProfilePicture } from './profile-picture.js'
import { networksCanFetch } from './public-host.js'
import { probeByRanges } from './range-probe.js'
import { createMediaStorage, type MediaStorage } from './storage.js'

/** {@link MediaInfo} plus what preflight can tell a person before anything is sent. */
export interface InspectedMedia extends MediaInfo {
  /** File name derived from the URL. */
  name: string
  /** Why the file will be re-encoded for this network (empty when it is sent unchanged). */
  conversions: string[]
}

export type { HostedMedia, StagedMedia }

/**
 * The media pipeline: safe fetch, type detection, probing, per-network conversion, hosting, and image
 * generation. Built once by the composition root; the worker's adapters see it as a {@link MediaPort}.
 */
export interface MediaService extends MediaPort {
  /**
   * Fetches `url` safely (within the network's size cap, through the fetch-once cache), probes it, converts it
   * to the network's rules and, for networks that fetch by URL (Instagram, Threads, Facebook), hosts the
   * result (linked to `targetId`, so it stays while that target is pending) and sets `publicUrl`.
   * The caller must `dispose()` the result. @throws {MediaError}
   */
  prepare(
    url: string,
    options: { network: Network; signal?: AbortSignal; targetId?: string },
  ): Promise<PreparedMedia>
  /**
   * The cheap check for preflight_post and create_post: probes (safely, within the network's cap) and checks
   * the network's rules, converting and hosting nothing. A video is read with range requests (its header and
   * moov box); an image, a cached URL or a server that ignores ranges is read whole through the fetch-once
   * cache, where the worker's send finds it. @throws {MediaError} with a reason a person can act on (`blocked_address`, `too_large`, `unsupported_type`, ...).
   */
  inspect(url: string, options: { network: Network; signal?: AbortSignal }): Promise<InspectedMedia>
  /** Makes an image with the configured provider; nothing is stored. @throws {ImageGenerationError} */
  generateImage(input: {
    prompt: string
    aspectRatio: AspectRatio
    signal?: AbortSignal
  }): Promise<GeneratedImage>
  /** Writes bytes to storage under a new unguessable id; the row is written by `commit`. */
  stage(input: StageInput): Promise<StagedMedia>
  /**
   * A profile's picture fetched through the guarded fetcher, re-encoded and staged as hosted media (the row
   * is written by `commit`). In sandbox mode the simulators' pictures, on Herald's own address, are reached
   * too. @throws {MediaError}
   */
  hostPicture(url: string, options: { workspaceId: string; signal?: AbortSignal }): Promise<StagedMedia>
  /** A hosted file by id when `name` matches; undefined otherwise (the routes answer 404). */
  findHosted(id: string, name: string): Promise<HostedMedia | undefined>
  /** True for URLs of files this service hosts (`{PUBLIC_BASE_URL}/media/...`). */
  isHostedUrl(url: string): boolean
  /** The ffmpeg videos are converted with, found once (the start line reports it); undefined: none. */
  ffmpeg(): Promise<Ffmpeg | undefined>
  /** The same, with the ffmpeg found but not used (too old) when there is one. */
  ffmpegLookup(): Promise<FfmpegLookup>
  readonly storage: MediaStorage
  readonly imageProvider: ImageProvider
  /** The fetch-once cache of media URL bytes shared by inspect and prepare. */
  readonly cache: MediaCache
}

export interface MediaServiceDeps {
  config: Config
  db: Db
  logger: Logger
  now(): number
  /** Test seams: DNS and routing for the fetcher, a storage driver, an image provider. */
  fetcherOptions?: Pick<SafeFetcherOptions, 'lookup' | 'dial' | 'idleTimeoutMs' | 'tempDir' | 'ca'>
  storage?: MediaStorage
  imageProvider?: ImageProvider
  /** Test seam: the ffmpeg to use (null: none); absent, it is found from the config. */
  ffmpeg?: Ffmpeg | null
}

export function createMediaService(deps: MediaServiceDeps): MediaService {
  const { config } = deps
  const logger = deps.logger.child({ subsystem: 'media' })
  const library = createMediaLibrary({
    publicBaseUrl: config.publicBaseUrl,
    db: deps.db,
    storage: deps.storage ?? createMediaStorage(config.media),
    now: deps.now,
    tempDir: deps.fetcherOptions?.tempDir,
    presignSeconds: config.media.driver === 's3' ? config.media.presignSeconds : undefined,
  })

  const cacheDir = config.mediaCache.dir
  const fetcher: SafeFetcher = createSafeFetcher({
    allowPrivate: config.allowPrivateMedia,
    connectTimeoutMs: config.mediaFetch.connectTimeoutMs,
    totalTimeoutMs: config.mediaFetch.totalTimeoutMs,
    logger,
    // Downloads land beside the cache, so keeping one is a hard link rather than a copy.
    ...(config.mediaCache.maxBytes > 0 ? { tempDir: path.join(cacheDir, 'work') } : {}),
    ...deps.fetcherOptions,
    // Our own hosted URLs are read from storage: no request to ourselves, no loopback refusal.
    localSource: library.localSource,
  })
  const cache = createMediaCache({ dir: cacheDir, maxBytes: config.mediaCache.maxBytes, fetcher, logger })
  // Sandbox mode's profiles are the simulators', whose pictures are on Herald's own (loopback) address.
  const pictureFetcher =
    config.sandbox && !config.allowPrivateMedia
      ? createSafeFetcher({
          allowPrivate: true,
          connectTimeoutMs: config.mediaFetch.connectTimeoutMs,
          logger,
          ...deps.fetcherOptions,
        })
      : fetcher

  const imageProvider =
    deps.imageProvider ??
    (config.imageApi ? createImageApiProvider({ ...config.imageApi, fetcher }) : createCardImageProvider())

  const media: MediaPipeline = {
    config,
    logger,
    library,
    fetcher,
    cache,
    ffmpegLookup: createFfmpegLookup(deps.ffmpeg, config),
    conversionSlots: createConversionSlots(config.videoConversion.concurrency),
  }

  return {
    storage: library.storage,
    imageProvider,
    findHosted: library.find,
    isHostedUrl: library.isHostedUrl,
    stage: library.stage,
    hostPicture: (url, options) => hostProfilePicture({ fetcher: pictureFetcher, library }, url, options),
    generateImage: (input) => imageProvider.generate(input),
    linkPreview: (url, { signal }) => readLinkPreview(fetcher, url, signal),
    ffmpeg: async () => (await media.ffmpegLookup()).ffmpeg,
    ffmpegLookup: media.ffmpegLookup,

    cache,

    inspect: (url, options) => inspectMedia(media, url, options),
    prepare: (url, options) => prepareMedia(media, url, options),
    firstFrame: (video, options) => firstFrameOf(media, video, options.signal),
  }
}

/** The video's first frame as a JPEG beside it (a video pin's cover), made with the configured ffmpeg. */
async function firstFrameOf(
  media: MediaPipeline,
  video: PreparedMedia,
  signal: AbortSignal | undefined,
): Promise<PreparedMedia> {
  const { ffmpeg } = await media.ffmpegLookup()
  if (!ffmpeg)
    throw new MediaError('conversion_failed', "This Herald has no ffmpeg to take the video's first frame")
  const target = path.join(path.dirname(video.path), `first-frame-${path.basename(video.path)}.jpg`)
  const { config } = media
  const frame = await extractFirstFrame(video.path, target, {
    ffmpeg: ffmpeg.path,
    timeoutMs: Math.min(config.videoConversion.timeoutMs, FIRST_FRAME_TIMEOUT_MS),
    limits: { cpuSeconds: config.videoConversion.cpuSeconds, memoryMb: config.videoConversion.memoryMb },
    ...(signal ? { signal } : {}),
  })
  return {
    path: frame.path,
    contentType: 'image/jpeg',
    size: frame.size,
    kind: 'image',
    name: withExtension(video.name, 'jpg'),
    dispose: () => rm(frame.path, { force: true }),
  }
}

/** A first frame is one decoded picture: a minute is far past what it takes. */
const FIRST_FRAME_TIMEOUT_MS = 60_000

/** What inspect and prepare work with, built once by {@link createMediaService}. */
interface MediaPipeline {
  config: Config
  logger: Logger
  library: MediaLibrary
  fetcher: SafeFetcher
  cache: MediaCache
  /** Finds ffmpeg once, on first use. */
  ffmpegLookup: () => Promise<FfmpegLookup>
  conversionSlots: ConversionSlots
}

function createFfmpegLookup(injected: Ffmpeg | null | undefined, config: Config) {
  let ffmpegFound: Promise<FfmpegLookup> | undefined
  return () => {
    ffmpegFound ??=
      injected !== undefined
        ? Promise.resolve(injected ? { ffmpeg: injected } : {})
        : lookForFfmpeg({ configured: config.videoConversion.ffmpegPath })
    return ffmpegFound
  }
}

function limitsFor(rules: NetworkMediaRules, signal: AbortSignal | undefined): FetchOptions {
  return {
    maxBytes: fetchCeiling(rules),
    capForHead: (head) => capFor(rules, head),
    ...(signal ? { signal } : {}),
  }
}

/** A video that needs converting needs ffmpeg: say so before anything is sent. */
async function requireFfmpeg(
  media: MediaPipeline,
  rules: NetworkMediaRules,
  plan: MediaPlan,
): Promise<Ffmpeg | undefined> {
  if (plan.action !== 'convert' || plan.kind !== 'video') return undefined
  const { ffmpeg: found, refused } = await media.ffmpegLookup()
  if (!found)
    throw new MediaError(
      'conversion_failed',
      refused
        ? `${rules.label} needs this video converted (${plan.reasons.join(', ')}), and this Herald's ffmpeg is not used: ${refused.reason}. Install a newer ffmpeg or set HERALD_FFMPEG_PATH`
        : `${rules.label} needs this video converted (${plan.reasons.join(', ')}), and this Herald has no ffmpeg: install ffmpeg or set HERALD_FFMPEG_PATH`,
    )
  return found
}

/** X's rule 2 (spec §1): the URL names the type. A video is never converted and relabelled as an image. */
function checkUrlType(url: string, info: MediaInfo, rules: NetworkMediaRules) {
  const videoUrls = rules.video?.onlyFromUrlExtensions
  if (info.kind === 'video' && videoUrls && !videoUrls.includes(urlExtension(url)))
    throw new MediaError(
      'unsupported_type',
      `${rules.label} takes the media type from the URL, which does not end in ${videoUrls.join(' or ')}; this file is a video`,
    )
}

/** Fetch (through the cache) and probe under the network's caps; the caller owns (and disposes) the download. */
async function fetchAndProbe(
  media: MediaPipeline,
  url: string,
  rules: NetworkMediaRules,
  signal: AbortSignal | undefined,
) {
  return probeFetched(await media.cache.fetch(url, limitsFor(rules, signal)), rules, url)
}

async function probeFetched(fetched: FetchedFile, rules: NetworkMediaRules, url: string) {
  try {
    const info = await probeFile(fetched)
    checkUrlType(url, info, rules)
    return { fetched, info, plan: planMedia(info, rules) }
  } catch (error) {
    await fetched.dispose()
    throw error
  }
}

async function inspectMedia(
  media: MediaPipeline,
  url: string,
  { network, signal }: { network: Network; signal?: AbortSignal },
): Promise<InspectedMedia> {
  const rules = networkMediaRules[network]
  let found: Awaited<ReturnType<typeof fetchAndProbe>>
  if (await media.cache.has(url)) found = await fetchAndProbe(media, url, rules, signal)
  else {
    // Not cached: read only what the prober needs, with range requests.
    const probe = await probeByRanges(media.fetcher, url, limitsFor(rules, signal))
    if (probe.kind === 'probed') {
      checkUrlType(url, probe.info, rules)
      const plan = planMedia(probe.info, rules)
      await requireFfmpeg(media, rules, plan)
      return {
        ...probe.info,
        name: fileName(probe, probe.info),
        conversions: plan.action === 'convert' ? plan.reasons : [],
      }
    }
    found =
      probe.kind === 'full'
        ? await probeFetched(await media.cache.keep(url, probe.file), rules, url)
        : await fetchAndProbe(media, url, rules, signal)
  }
  const { fetched, info, plan } = found
  await fetched.dispose()
  await requireFfmpeg(media, rules, plan)
  return {
    ...info,
    name: fileName(fetched, info),
    conversions: plan.action === 'convert' ? plan.reasons : [],
  }
}

async function prepareMedia(
  media: MediaPipeline,
  url: string,
  { network, signal, targetId }: { network: Network; signal?: AbortSignal; targetId?: string },
): Promise<PreparedMedia> {
  const { library } = media
  const rules = networkMediaRules[network]
  // Sending one of our own files (an upload, a generated image) is a use: its retention restarts.
  if (library.isHostedUrl(url)) await library.recordUse(url, targetId)
  const { fetched, info, plan } = await fetchAndProbe(media, url, rules, signal)
  try {
    const result = await convertForNetwork(media, { fetched, info, plan, rules, network, signal })
    // URL networks fetch from us, so they get exactly the bytes checked here (never the user's URL):
    // our hosted URL, or a presigned URL of the same object when storage is S3.
    let publicUrl: string | undefined
    if (hostsFor(media, rules, info.kind))
      publicUrl = await library.networkUrl(
        plan.action === 'keep' && library.isHostedUrl(url)
          ? url
          : await library.host(result.path, {
              ...result,
              durationMs: info.durationMs,
              sourceUrl: url,
              targetId,
            }),
      )
    const prepared: PreparedMedia = {
      ...result,
      kind: info.kind,
      dispose: fetched.dispose,
    }
    if (info.durationMs !== undefined) prepared.durationMs = info.durationMs
    if (publicUrl) prepared.publicUrl = publicUrl
    return prepared
  } catch (error) {
    await fetched.dispose()
    throw error
  }
}

/**
 * Whether the network is handed a hosted copy's URL: always where it fetches by URL; for Pinterest's
 * images only when it can reach Herald's media host (otherwise the adapter sends the bytes inline).
 */
function hostsFor(media: MediaPipeline, rules: NetworkMediaRules, kind: PreparedMedia['kind']): boolean {
  if (rules.delivery === 'url') return true
  // TikTok fetches its photos from Herald's copy, and takes its videos uploaded.
  if (rules.delivery === 'images-by-url') return kind !== 'video'
  return rules.delivery === 'url_or_inline' && kind !== 'video' && networksCanFetch(media.config)
}

/** The fetched file as the network takes it: unchanged, or converted beside the download. */
async function convertForNetwork(
  media: MediaPipeline,
  job: {
    fetched: FetchedFile
    info: MediaInfo
    plan: MediaPlan
    rules: NetworkMediaRules
    network: Network
    signal: AbortSignal | undefined
  },
) {
  const { config, logger } = media
  const { fetched, info, plan, network, signal } = job
  const result = {
    path: fetched.path,
    contentType: info.contentType,
    size: info.size,
    width: info.width,
    height: info.height,
    name: fileName(fetched, info),
  }
  const converter = await requireFfmpeg(media, job.rules, plan)
  if (plan.action === 'convert' && plan.kind === 'video' && converter) {
    const target = path.join(path.dirname(fetched.path), 'converted.mp4')
    const converted = await media.conversionSlots.run(
      () =>
        convertVideo(fetched.path, plan, target, {
          ffmpeg: converter.path,
          timeoutMs: config.videoConversion.timeoutMs,
          limits: {
            cpuSeconds: config.videoConversion.cpuSeconds,
            memoryMb: config.videoConversion.memoryMb,
          },
          ...(signal ? { signal } : {}),
        }),
      signal,
    )
    logger.info({ network, reasons: plan.reasons, from: info.size, to: converted.size }, 'video converted')
    return {
      ...result,
      path: converted.path,
      contentType: converted.contentType,
      size: converted.size,
      width: converted.width ?? info.width,
      height: converted.height ?? info.height,
      name: withExtension(result.name, converted.extension),
    }
  }
  if (plan.action === 'convert' && plan.kind === 'image') {
    const target = path.join(path.dirname(fetched.path), 'converted')
    const converted = await convertImage(fetched.path, plan, target)
    logger.debug({ network, reasons: plan.reasons, from: info.size, to: converted.size }, 'media converted')
    return { ...converted, name: withExtension(result.name, converted.extension) }
  }
  return result
}

/** The URL's file name, with the detected type's extension when the URL had none. */
function fileName(fetched: Pick<FetchedFile, 'name' | 'head' | 'extension'>, info: MediaInfo): string {
  if (path.extname(fetched.name)) return fetched.name
  const detected = detectType(fetched.head, fetched.extension)
  return withExtension(fetched.name, detected?.extension ?? info.format)
}

/** Once the first bytes show the kind, the cap drops to that kind's (and a kind the network refuses stops here). */
function capFor(rules: NetworkMediaRules, head: Buffer): number {
  const detected = detectType(head)
  if (detected?.kind === 'video') {
    if (!rules.video) throw new MediaError('unsupported_type', `${rules.label} does not take video`)
    return rules.video.sourceMaxBytes
  }
  if (detected && !rules.image)
    throw new MediaError(
      'unsupported_type',
      `${rules.label} needs a video; this is an image (${detected.contentType})`,
    )
  return rules.imageFetchCap
}
