import { MediaError } from '../../core/media-port.js'
import type { Network } from '../../core/networks.js'
import type { PlannedTarget } from '../../core/post-plan.js'
import type { MediaService } from '../media/media-service.js'

export interface MediaFindings {
  blockers: string[]
  warnings: string[]
  /** Each video's length as probed, by `<network> <url>` (TikTok holds it to the creator's maximum). */
  videoMs: Map<string, number>
}

/** Fetch problems that may clear up by publish time (the worker fetches the URL again then). */
const TRANSIENT = new Set(['fetch_failed', 'timeout'])

/** One URL to probe for one network: an attachment, or a video pin's cover image. */
interface Probe {
  url: string
  network: Network
  who: string
  cover?: boolean
}
const PROBE_CONCURRENCY = 4

/**
 * Fetches and probes each attachment once per network (safely, within the network's cap) and reports what
 * would stop the post: a still image for YouTube, a video that is not a Short, a file over a network's cap,
 * a type the network does not take, a video pin's cover that is not an image. X keeps its own rule (a failed upload ships the post with the URL
 * appended), so its media problems are warnings.
 */
export async function checkMedia(
  media: MediaService,
  targets: PlannedTarget[],
  signal?: AbortSignal,
): Promise<MediaFindings> {
  const pairs = new Map<string, Probe>()
  for (const target of targets) {
    const network = target.connection.platform
    for (const url of target.mediaUrls) {
      const key = `${network} ${url}`
      if (!pairs.has(key)) pairs.set(key, { url, network, who: network })
    }
    const cover = target.pinterest?.coverImageUrl
    if (cover && !pairs.has(`cover ${cover}`))
      pairs.set(`cover ${cover}`, { url: cover, network, who: `${network} coverImageUrl`, cover: true })
  }
  const findings: MediaFindings = { blockers: [], warnings: [], videoMs: new Map() }
  const queue = [...pairs.values()]
  const probeOne = async ({ url, network, who, cover }: Probe) => {
    const blocker = (message: string) =>
      (network === 'twitter' ? findings.warnings : findings.blockers).push(`${who}: ${message}`)
    try {
      const info = await media.inspect(url, { network, ...(signal ? { signal } : {}) })
      if (info.kind === 'video' && info.durationMs !== undefined)
        findings.videoMs.set(`${network} ${url}`, info.durationMs)
      if (cover && info.kind === 'video') blocker(`${url} is a video; a pin's cover must be an image`)
      if (network === 'youtube') {
        if (info.kind !== 'video') blocker(`YouTube Shorts needs a video; ${url} is a ${info.format} image`)
        else if (!info.isShortEligible) {
          const seconds =
            info.durationMs === undefined ? 'unknown length' : `${Math.round(info.durationMs / 1000)} s`
          blocker(
            `${url} is not a Short: it must be vertical or square and at most 3 minutes (it is ${info.width ?? '?'}x${info.height ?? '?'}, ${seconds})`,
          )
        }
      }
      for (const reason of info.conversions)
        findings.warnings.push(`${who}: ${url} will be converted (${reason})`)
    } catch (error) {
      if (!(error instanceof MediaError)) throw error
      if (TRANSIENT.has(error.reason))
        findings.warnings.push(
          `${who}: ${url} could not be fetched now (${error.message}); it is fetched again at publish time`,
        )
      else
        blocker(
          `${url}: ${error.message}${network === 'twitter' ? ' (the post would go out with the URL appended)' : ''}`,
        )
    }
  }
  const workers = Array.from({ length: Math.min(PROBE_CONCURRENCY, queue.length) }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await probeOne(next)
  })
  await Promise.all(workers)
  return findings
}
