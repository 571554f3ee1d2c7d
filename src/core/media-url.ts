import path from 'node:path'
import { MediaError } from './media-port.js'

/** Pure helpers about media URLs: what may be fetched, what a URL suggests, what to call the file. */

export const videoExtensions = new Set(['.mp4', '.mov', '.webm', '.m4v'])

/**
 * Parses a user-supplied media URL. Only `http:` and `https:` pass; credentials in the URL are refused.
 * The WHATWG parser also normalises numeric host forms (`2130706433`, `0177.0.0.1`, `0x7f.0.0.1` all
 * become `127.0.0.1`), so the address policy sees the address a connection would really reach.
 * @throws {MediaError} `bad_url`
 */
export function parseMediaUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new MediaError('bad_url', `Not a valid URL: ${truncate(raw)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new MediaError('bad_url', `Only http and https media URLs are fetched, not ${url.protocol}`)
  if (url.username || url.password)
    throw new MediaError('bad_url', 'Media URLs must not carry a user name or password')
  if (!url.hostname) throw new MediaError('bad_url', `The URL has no host: ${truncate(raw)}`)
  return url
}

/** The extension of the URL's path, lower-cased with its dot (`.mp4`), or '' when there is none. */
export function urlExtension(raw: string): string {
  try {
    return path.posix.extname(new URL(raw).pathname).toLowerCase()
  } catch {
    return ''
  }
}

/**
 * True when the URL's path ends in a video extension (`.mp4`, `.mov`, `.webm`, `.m4v`). YouTube rule 1
 * (spec §1) checks this before any transfer, so a still image is refused without spending quota.
 * Pure: nothing is fetched.
 */
export function looksLikeVideoUrl(raw: string): boolean {
  return videoExtensions.has(urlExtension(raw))
}

/** A safe file name from the URL's last path segment (`media` when it has none). */
export function fileNameFromUrl(raw: string): string {
  let base = ''
  try {
    base = decodeURIComponent(path.posix.basename(new URL(raw).pathname))
  } catch {
    base = ''
  }
  return sanitizeFileName(base) || 'media'
}

/** Keeps letters, digits, dot, dash and underscore; at most 100 characters; no leading dot. */
export function sanitizeFileName(name: string): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[^\w.-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-100)
  return cleaned
}

/** Replaces (or adds) the extension of a file name. */
export function withExtension(name: string, extension: string): string {
  const current = path.posix.extname(name)
  const stem = current ? name.slice(0, -current.length) : name
  return `${stem || 'media'}.${extension}`
}

const truncate = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text)
