/**
 * The media bytes a simulator keeps so its web pages can show them, as a network keeps its own copy of
 * what it was sent (X's uploads, LinkedIn's assets, the files Meta's fetcher downloaded, a YouTube upload).
 * A file over {@link KEPT_MEDIA_MAX_BYTES} is not kept: its page shows a poster instead, so a long video
 * uploaded to a demo does not sit in memory.
 */

/** The largest file a simulator keeps for its pages (a demo clip or a photo, not a feature film). */
export const KEPT_MEDIA_MAX_BYTES = 32 * 1024 * 1024

export interface KeptFile {
  contentType: string
  bytes: Buffer
}

export class KeptMedia {
  private readonly files = new Map<string, KeptFile>()

  constructor(private readonly maxBytes = KEPT_MEDIA_MAX_BYTES) {}

  /** Keeps the file under `key`; false (nothing kept) when it is empty or over the limit. */
  keep(key: string, contentType: string, bytes: Buffer | readonly Buffer[]): boolean {
    const whole = Buffer.isBuffer(bytes) ? bytes : Buffer.concat(bytes)
    if (whole.length === 0 || whole.length > this.maxBytes) return false
    this.files.set(key, { contentType, bytes: whole })
    return true
  }

  get(key: string): KeptFile | undefined {
    return this.files.get(key)
  }

  has(key: string): boolean {
    return this.files.has(key)
  }

  clear(): void {
    this.files.clear()
  }
}

/** The content type of image or video bytes by their first bytes, for files that arrived without one. */
export function sniffContentType(bytes: Buffer, fallback = 'application/octet-stream'): string {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg'
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'image/png'
  if (bytes.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif'
  if (
    bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
    bytes.subarray(8, 12).toString('latin1') === 'WEBP'
  )
    return 'image/webp'
  if (bytes.subarray(4, 8).toString('latin1') === 'ftyp')
    return bytes.subarray(8, 10).toString('latin1') === 'qt' ? 'video/quicktime' : 'video/mp4'
  return fallback
}
