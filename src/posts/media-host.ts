import { isIP } from 'node:net'
import type { Config } from '../config.js'
import type { PlannedTarget } from '../domain/post-plan.js'
import { checkAddress } from '../media/address-policy.js'
import { networkMediaRules } from '../media/network-rules.js'

/**
 * Networks that fetch media by URL (Instagram, Facebook, Threads) download Herald's hosted copy from
 * PUBLIC_BASE_URL. Outside sandbox mode that address must be one the internet can reach over HTTPS;
 * otherwise every such target with media is blocked, with the fix in the message. In sandbox mode the
 * simulators fetch from Herald itself, so any address works; with HERALD_ALLOW_PRIVATE_MEDIA=1 (a local
 * setup by its own declaration) the check is left out too.
 */
export function mediaHostBlockers(
  config: Pick<Config, 'sandbox' | 'publicBaseUrl' | 'allowPrivateMedia'>,
  targets: PlannedTarget[],
): string[] {
  // HERALD_ALLOW_PRIVATE_MEDIA marks a local setup (tests, demos) whose media stays on private addresses.
  if (config.sandbox || config.allowPrivateMedia) return []
  const problem = publicHostProblem(config.publicBaseUrl)
  if (!problem) return []
  const networks = [
    ...new Set(
      targets
        .filter((t) => t.mediaUrls.length > 0 && networkMediaRules[t.connection.platform].delivery === 'url')
        .map((t) => networkMediaRules[t.connection.platform].label),
    ),
  ]
  return networks.map(
    (label) =>
      `${label} downloads the media from Herald's public address, and PUBLIC_BASE_URL (${config.publicBaseUrl}) ${problem}: set PUBLIC_BASE_URL to an https address the internet can reach (a domain, or a tunnel to this server) and restart Herald`,
  )
}

/** Why the internet cannot fetch from `baseUrl`, or undefined when it can. */
export function publicHostProblem(baseUrl: string): string | undefined {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return 'is not a URL'
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (url.protocol !== 'https:') return 'is not https'
  if (isIP(host)) {
    const verdict = checkAddress(host)
    return verdict.allowed ? undefined : `is a ${verdict.category.replace('_', '-')} address`
  }
  if (
    host === 'localhost' ||
    /\.(localhost|local|internal|lan|home|test|invalid|example)$/.test(host) ||
    !host.includes('.')
  )
    return 'is not a public host name'
  return undefined
}
