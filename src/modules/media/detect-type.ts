import type { ImageFormat, MediaKind, VideoContainer } from '../../core/media-port.js'

/** Media type detection from a file's first bytes. Pure. */

export interface DetectedType {
  kind: MediaKind
  contentType: string
  /** `jpeg`, `png`, ... for images; `mp4`, `mov`, `webm` for videos. */
  format: ImageFormat | VideoContainer
  /** Conventional extension without the dot. */
  extension: string
}

const image = (format: ImageFormat, contentType: string, extension: string): DetectedType => ({
  kind: format === 'gif' ? 'gif' : 'image',
  contentType,
  format,
  extension,
})
const video = (format: VideoContainer, contentType: string, extension: string): DetectedType => ({
  kind: 'video',
  contentType,
  format,
  extension,
})

const startsWith = (head: Buffer, bytes: number[], at = 0) => bytes.every((byte, i) => head[at + i] === byte)
const text = (head: Buffer, from: number, to: number) => head.subarray(from, to).toString('latin1')

/** Old QuickTime files may start with one of these atoms instead of `ftyp`. */
const quickTimeAtoms = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'])

/**
 * The media type of a file from its magic bytes; the URL's extension is only a hint, used to tell an
 * `.mov` from an `.mp4` when the brand is ambiguous. Returns undefined for anything Herald does not
 * handle (HTML error pages, PDFs, audio...).
 */
export function detectType(head: Buffer, extensionHint = ''): DetectedType | undefined {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return image('jpeg', 'image/jpeg', 'jpg')
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return image('png', 'image/png', 'png')
  if (text(head, 0, 6) === 'GIF87a' || text(head, 0, 6) === 'GIF89a') return image('gif', 'image/gif', 'gif')
  if (text(head, 0, 4) === 'RIFF' && text(head, 8, 12) === 'WEBP') return image('webp', 'image/webp', 'webp')
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]))
    return image('tiff', 'image/tiff', 'tiff')
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) {
    // Matroska and WebM share the EBML magic; the DocType in the header tells them apart (the prober checks it).
    return head.includes(Buffer.from('matroska')) ? undefined : video('webm', 'video/webm', 'webm')
  }
  const atom = text(head, 4, 8)
  if (atom === 'ftyp') {
    const brands = brandsOf(head)
    if (brands.some((b) => b === 'avif' || b === 'avis')) return image('avif', 'image/avif', 'avif')
    if (brands.some((b) => ['heic', 'heix', 'mif1', 'msf1', 'heim', 'heis'].includes(b)))
      return image('heif', 'image/heif', 'heic')
    if (brands[0] === 'qt  ' || (extensionHint === '.mov' && brands.includes('qt  ')))
      return video('mov', 'video/quicktime', 'mov')
    return video('mp4', 'video/mp4', 'mp4')
  }
  if (quickTimeAtoms.has(atom) && (extensionHint === '.mov' || atom === 'moov' || atom === 'mdat'))
    return video('mov', 'video/quicktime', 'mov')
  return undefined
}

/** Major brand then compatible brands of an `ftyp` box at the start of `head`. */
function brandsOf(head: Buffer): string[] {
  const size = Math.min(head.readUInt32BE(0), head.length)
  const brands = [text(head, 8, 12)]
  for (let at = 16; at + 4 <= size; at += 4) brands.push(text(head, at, at + 4))
  return brands
}
