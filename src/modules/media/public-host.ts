import { isIP } from 'node:net'
import type { Config } from '../../platform/config.js'
import { checkAddress } from '../../platform/egress/address-policy.js'

/**
 * Whether a network can download Herald's hosted media: from PUBLIC_BASE_URL, or from the S3 bucket's
 * presigned URLs when storage is S3. In sandbox mode the simulators fetch from Herald itself, and with
 * HERALD_ALLOW_PRIVATE_MEDIA=1 (a local setup by its own declaration) private addresses count as reachable.
 */
export function networksCanFetch(
  config: Pick<Config, 'sandbox' | 'publicBaseUrl' | 'allowPrivateMedia' | 'media'>,
): boolean {
  if (config.sandbox || config.allowPrivateMedia) return true
  if (config.media.driver === 's3')
    return !config.media.endpoint || publicHostProblem(config.media.endpoint) === undefined
  return publicHostProblem(config.publicBaseUrl) === undefined
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
