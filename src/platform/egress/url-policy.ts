import { isIP } from 'node:net'
import { checkAddress } from './address-policy.js'
import { categoryWords, defaultLookup, type LookupFn } from './safe-fetch.js'

export interface UrlPolicyOptions {
  /** HERALD_ALLOW_PRIVATE_MEDIA: loopback and private ranges pass (tests, local demos); metadata never. */
  allowPrivate: boolean
  lookup?: LookupFn
  /** How long a name may take to resolve before it is given the benefit of the doubt. */
  lookupTimeoutMs?: number
}

const RULE = 'Herald fetches media only over http(s) from public addresses'

/**
 * Why Herald will never fetch `raw`, or undefined when it may. Checked when a post is created or edited,
 * so a URL like `http://169.254.169.254/...` is refused with a 400 instead of being queued (and, for X,
 * appended to a public post when its upload fails). A name is resolved and every answer checked; the
 * answer itself is never named in the message. A name that does not resolve now is not refused: the
 * fetch at send time resolves (and checks) it again and says what went wrong.
 */
export async function mediaUrlRefusal(raw: string, options: UrlPolicyOptions): Promise<string | undefined> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return `${raw} is not a URL`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `${raw} is refused: ${RULE} (not ${url.protocol.replace(':', '')})`
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const policy = { allowPrivate: options.allowPrivate }
  if (isIP(host)) {
    const verdict = checkAddress(host, policy)
    return verdict.allowed ? undefined : `${raw} is refused: ${RULE}; ${verdict.reason}`
  }
  const name = host.toLowerCase().replace(/\.$/, '')
  if ((name === 'localhost' || name.endsWith('.localhost')) && !options.allowPrivate)
    return `${raw} is refused: ${RULE}; ${host} is a loopback name`
  const addresses = await resolveQuietly(host, options)
  for (const entry of addresses) {
    const verdict = checkAddress(entry.address, policy)
    if (!verdict.allowed)
      return `${raw} is refused: ${RULE}; ${host} resolves to a ${categoryWords[verdict.category]} address`
  }
  return undefined
}

async function resolveQuietly(host: string, options: UrlPolicyOptions) {
  const lookup = options.lookup ?? defaultLookup
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<[]>((resolve) => {
    timer = setTimeout(() => resolve([]), options.lookupTimeoutMs ?? 2_000)
  })
  try {
    return await Promise.race([lookup(host).catch(() => []), timeout])
  } finally {
    clearTimeout(timer)
  }
}
