import path from 'node:path'
import type { Config } from '../config.js'
import type { Network } from '../domain/networks.js'
import type { Logger } from '../logger.js'
import type { Db } from '../store/db.js'
import { planMedia } from './conversion-plan.js'
import { convertImage } from './convert.js'
import { detectType } from './detect-type.js'
import { createImageApiProvider } from './image-api.js'
import { createCardImageProvider } from './image-card.js'
import type { AspectRatio, GeneratedImage, ImageProvider } from './image-provider.js'
import { readLinkPreview } from './link-preview.js'
import { createMediaLibrary, type HostedMedia, type StagedMedia, type StageInput } from './media-library.js'
import { withExtension } from './media-url.js'
import { fetchCeiling, type NetworkMediaRules, networkMediaRules } from './network-rules.js'
import { MediaError, type MediaPort, type PreparedMedia } from './port.js'
import { type MediaInfo, probeFile } from './probe.js'
import {
  createSafeFetcher,
  type FetchedFile,
  type SafeFetcher,
  type SafeFetcherOptions,
} from './safe-fetch.js'
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
   * Fetches `url` safely (within the network's size cap), probes it, converts it to the network's rules and,
   * for networks that fetch by URL (Instagram, Threads, Facebook), hosts the result and sets `publicUrl`.
   * The caller must `dispose()` the result. @throws {MediaError}
   */
  prepare(url: string, options: { network: Network; signal?: AbortSignal }): Promise<PreparedMedia>
  /**
   * The cheap check for preflight_post and create_post: fetches (safely, within the network's cap) and probes,
   * checks the network's rules, converts and stores nothing, deletes the download. @throws {MediaError}
   * with a reason a person can act on (`blocked_address`, `too_large`, `unsupported_type`, ...).
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
  /** A hosted file by id when `name` matches; undefined otherwise (the routes answer 404). */
  findHosted(id: string, name: string): Promise<HostedMedia | undefined>
  /** True for URLs of files this service hosts (`{PUBLIC_BASE_URL}/media/...`). */
  isHostedUrl(url: string): boolean
  readonly storage: MediaStorage
  readonly imageProvider: ImageProvider
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

  const fetcher: SafeFetcher = createSafeFetcher({
    allowPrivate: config.allowPrivateMedia,
    connectTimeoutMs: config.mediaFetch.connectTimeoutMs,
    totalTimeoutMs: config.mediaFetch.totalTimeoutMs,
    logger,
    ...deps.fetcherOptions,
    // Our own hosted URLs are read from storage: no request to ourselves, no loopback refusal.
    localSource: library.localSource,
  })

  const imageProvider =
    deps.imageProvider ??
    (config.imageApi ? createImageApiProvider({ ...config.imageApi, fetcher }) : createCardImageProvider())

  /** Fetch and probe under the network's caps; the caller owns (and disposes) the download. */
  async function fetchAndProbe(url: string, rules: NetworkMediaRules, signal: AbortSignal | undefined) {
    const fetched = await fetcher.fetchToFile(url, {
      maxBytes: fetchCeiling(rules),
      capForHead: (head) => capFor(rules, head),
      ...(signal ? { signal } : {}),
    })
    try {
      const info = await probeFile(fetched)
      return { fetched, info, plan: planMedia(info, rules) }
    } catch (error) {
      await fetched.dispose()
      throw error
    }
  }

  return {
    storage: library.storage,
    imageProvider,
    findHosted: library.find,
    isHostedUrl: library.isHostedUrl,
    stage: library.stage,
    generateImage: (input) => imageProvider.generate(input),
    linkPreview: (url, { signal }) => readLinkPreview(fetcher, url, signal),

    async inspect(url, { network, signal }) {
      const { fetched, info, plan } = await fetchAndProbe(url, networkMediaRules[network], signal)
      await fetched.dispose()
      return {
        ...info,
        name: fileName(fetched, info),
        conversions: plan.action === 'convert' ? plan.reasons : [],
      }
    },

    async prepare(url, { network, signal }) {
      const rules = networkMediaRules[network]
      const { fetched, info, plan } = await fetchAndProbe(url, rules, signal)
      try {
        let result = {
          path: fetched.path,
          contentType: info.contentType,
          size: info.size,
          width: info.width,
          height: info.height,
          name: fileName(fetched, info),
        }
        if (plan.action === 'convert') {
          const target = path.join(path.dirname(fetched.path), 'converted')
          const converted = await convertImage(fetched.path, plan, target)
          result = { ...converted, name: withExtension(result.name, converted.extension) }
          logger.debug(
            { network, reasons: plan.reasons, from: info.size, to: converted.size },
            'media converted',
          )
        }
        // URL networks fetch from us, so they get exactly the bytes checked here (never the user's URL):
        // our hosted URL, or a presigned URL of the same object when storage is S3.
        let publicUrl: string | undefined
        if (rules.delivery === 'url')
          publicUrl = await library.networkUrl(
            plan.action === 'keep' && library.isHostedUrl(url)
              ? url
              : await library.host(result.path, { ...result, durationMs: info.durationMs, sourceUrl: url }),
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
    },
  }
}

/** The URL's file name, with the detected type's extension when the URL had none. */
function fileName(fetched: FetchedFile, info: MediaInfo): string {
  if (path.extname(fetched.name)) return fetched.name
  const detected = detectType(fetched.head, fetched.extension)
  return withExtension(fetched.name, detected?.extension ?? info.format)
}

/** Once the first bytes show the kind, the cap drops to that kind's (and a kind the network refuses stops here). */
function capFor(rules: NetworkMediaRules, head: Buffer): number {
  const detected = detectType(head)
  if (detected?.kind === 'video') {
    if (!rules.video) throw new MediaError('unsupported_type', `${rules.label} does not take video`)
    return rules.video.maxBytes
  }
  if (detected && !rules.image)
    throw new MediaError(
      'unsupported_type',
      `${rules.label} needs a video; this is an image (${detected.contentType})`,
    )
  return rules.imageFetchCap
}
