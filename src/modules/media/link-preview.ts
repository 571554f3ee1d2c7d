import { readFile } from 'node:fs/promises'
import type { LinkPreview } from '../../core/media-port.js'
import type { SafeFetcher } from '../../platform/egress/safe-fetch.js'

/**
 * A web page's card (title, description, image) from its Open Graph tags, falling back to `<title>` and
 * `<meta name="description">`, fetched through the guarded fetcher (so a link cannot reach a private
 * address) and read from its first {@link PAGE_CAP} bytes only.
 */

const PAGE_CAP = 1024 * 1024

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }
const decode = (text: string) =>
  text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&([a-z]+);/gi, (m, name: string) => ENTITIES[name.toLowerCase()] ?? m)
    .replace(/\s+/g, ' ')
    .trim()

/** The `content` of the first `<meta>` whose `property` or `name` is one of `keys`. */
function metaContent(html: string, keys: string[]): string | undefined {
  for (const tag of html.matchAll(/<meta\b[^>]*>/gi)) {
    const attributes = new Map<string, string>()
    for (const attr of tag[0].matchAll(/([a-z:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi))
      attributes.set((attr[1] as string).toLowerCase(), attr[2] ?? attr[3] ?? '')
    const key = (attributes.get('property') ?? attributes.get('name') ?? '').toLowerCase()
    const content = attributes.get('content')
    if (keys.includes(key) && content) return decode(content)
  }
  return undefined
}

/** Parses a page's card; pure, for tests. */
export function parseLinkPreview(html: string, pageUrl: string): LinkPreview {
  const head = html.slice(0, PAGE_CAP)
  const titleTag = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1]
  const title = metaContent(head, ['og:title', 'twitter:title']) ?? (titleTag ? decode(titleTag) : undefined)
  const description = metaContent(head, ['og:description', 'twitter:description', 'description'])
  const image = metaContent(head, ['og:image', 'og:image:url', 'twitter:image'])
  let imageUrl: string | undefined
  if (image) {
    try {
      const resolved = new URL(image, pageUrl)
      if (resolved.protocol === 'https:' || resolved.protocol === 'http:') imageUrl = resolved.toString()
    } catch {
      imageUrl = undefined
    }
  }
  return {
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    ...(imageUrl ? { imageUrl } : {}),
  }
}

export async function readLinkPreview(
  fetcher: SafeFetcher,
  url: string,
  signal: AbortSignal | undefined,
): Promise<LinkPreview> {
  const fetched = await fetcher.fetchToFile(url, { maxBytes: PAGE_CAP, ...(signal ? { signal } : {}) })
  try {
    return parseLinkPreview((await readFile(fetched.path)).toString('utf8'), fetched.finalUrl)
  } finally {
    await fetched.dispose()
  }
}
