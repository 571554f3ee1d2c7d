import { looksLikeVideoUrl } from '../../core/media-url.js'
import { type NetworkMediaRules, networkMediaRules } from '../../core/network-rules.js'
import type { PlannedTarget } from '../../core/post-plan.js'
import type { Config } from '../../platform/config.js'
import { publicHostProblem } from '../media/public-host.js'

export { publicHostProblem }

/**
 * Networks that fetch media by URL (Instagram, Facebook, Threads, TikTok's photos) download Herald's hosted copy from
 * PUBLIC_BASE_URL, or, when storage is S3, from a presigned URL at the bucket's endpoint. Outside sandbox
 * mode that address must be one the internet can reach over HTTPS; otherwise every such target with media
 * is blocked, with the fix in the message. In sandbox mode the simulators fetch from Herald itself, so any
 * address works; with HERALD_ALLOW_PRIVATE_MEDIA=1 (a local setup by its own declaration) the check is left
 * out too.
 */
export function mediaHostBlockers(
  config: Pick<Config, 'sandbox' | 'publicBaseUrl' | 'allowPrivateMedia' | 'media'>,
  targets: PlannedTarget[],
): string[] {
  // HERALD_ALLOW_PRIVATE_MEDIA marks a local setup (tests, demos) whose media stays on private addresses.
  if (config.sandbox || config.allowPrivateMedia) return []
  const { media } = config
  if (media.driver === 's3') {
    // AWS itself when no endpoint is set: public.
    const problem = media.endpoint ? publicHostProblem(media.endpoint) : undefined
    if (!problem) return []
    return fetchingNetworks(targets).map(
      (label) =>
        `${label} downloads the media from a presigned URL of the S3 bucket, and HERALD_S3_ENDPOINT (${media.endpoint}) ${problem}: use an S3 endpoint the internet can reach over https`,
    )
  }
  const problem = publicHostProblem(config.publicBaseUrl)
  if (!problem) return []
  return fetchingNetworks(targets).map(
    (label) =>
      `${label} downloads the media from Herald's public address, and PUBLIC_BASE_URL (${config.publicBaseUrl}) ${problem}: set PUBLIC_BASE_URL to an https address the internet can reach (a domain, or a tunnel to this server) and restart Herald`,
  )
}

/** The networks among `targets` that fetch their media by URL, once each, by label. */
function fetchingNetworks(targets: PlannedTarget[]): string[] {
  return [
    ...new Set(
      targets
        .filter((t) => fetchesByUrl(networkMediaRules[t.connection.platform].delivery, t.mediaUrls))
        .map((t) => networkMediaRules[t.connection.platform].label),
    ),
  ]
}

/**
 * True when the network downloads some of these attachments itself and has no other way to get them
 * (TikTok: its photos, not its videos). Pinterest takes an image's bytes inline when it cannot fetch it.
 */
function fetchesByUrl(delivery: NetworkMediaRules['delivery'], mediaUrls: string[]): boolean {
  if (delivery === 'url') return mediaUrls.length > 0
  return delivery === 'images-by-url' && mediaUrls.some((url) => !looksLikeVideoUrl(url))
}
