import type { MediaService } from '../../modules/media/media-service.js'
import type { LinkCard } from './compose-previews.js'

/**
 * The card of the first link in a draft's copy, for Compose's preview. The live check runs on every pause in
 * typing, so each page is read once (through the media service's guarded fetcher) and kept a while; a page
 * slower than the check shows its site alone this time and its title on the next check.
 */

const KEEP_MS = 10 * 60_000
const WAIT_MS = 1_500
const MOST = 200

interface Kept {
  at: number
  card: Promise<LinkCard>
}

/** The first http(s) address in a copy. */
export function firstLink(copy: string): URL | undefined {
  for (const match of copy.matchAll(/https?:\/\/[^\s<>"]+/g)) {
    try {
      return new URL(match[0].replace(/[.,;:!?)\]]+$/, ''))
    } catch {}
  }
  return undefined
}

export function createLinkCards(media: Pick<MediaService, 'linkPreview'>, now: () => number) {
  const kept = new Map<string, Kept>()

  const read = (url: URL): Promise<LinkCard> => {
    const bare: LinkCard = { url: url.toString(), host: url.hostname.replace(/^www\./, '') }
    const reading = media.linkPreview?.(url.toString(), { signal: AbortSignal.timeout(10_000) })
    if (!reading) return Promise.resolve(bare)
    return reading.then(
      (page) => ({
        ...bare,
        ...(page.title ? { title: page.title } : {}),
        ...(page.description ? { description: page.description } : {}),
      }),
      () => bare,
    )
  }

  /** The card of the copy's first link, or undefined when it has none. */
  return async function cardFor(copy: string): Promise<LinkCard | undefined> {
    const url = firstLink(copy)
    if (!url) return undefined
    const key = url.toString()
    let entry = kept.get(key)
    if (!entry || now() - entry.at > KEEP_MS) {
      if (kept.size >= MOST) kept.delete(kept.keys().next().value as string)
      entry = { at: now(), card: read(url) }
      kept.set(key, entry)
    }
    const bare: LinkCard = { url: key, host: url.hostname.replace(/^www\./, '') }
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<LinkCard>((resolve) => {
      timer = setTimeout(() => resolve(bare), WAIT_MS)
    })
    try {
      return await Promise.race([entry.card, late])
    } finally {
      clearTimeout(timer)
    }
  }
}
