import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import type { MediaError } from '../../src/core/media-port.js'
import { looksLikeVideoUrl } from '../../src/core/media-url.js'
import { isShortEligible } from '../../src/core/youtube-rules.js'
import { detectType } from '../../src/modules/media/detect-type.js'
import { probeFile } from '../../src/modules/media/probe.js'
import { mp4File, solidImage, webmFile } from './fixtures.js'

const dir = mkdtempSync(path.join(tmpdir(), 'herald-probe-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let counter = 0
async function probe(bytes: Buffer, extension = '') {
  const file = path.join(dir, `f${counter++}`)
  writeFileSync(file, bytes)
  return probeFile({ path: file, head: bytes.subarray(0, 4096), size: bytes.length, extension })
}

describe('media probing', () => {
  it.each([
    ['png', 'image/png', 640, 480],
    ['jpeg', 'image/jpeg', 1200, 1500],
    ['webp', 'image/webp', 333, 777],
    ['gif', 'image/gif', 50, 40],
  ] as const)('reads a %s image exactly', async (format, contentType, width, height) => {
    const bytes = await solidImage(width, height, format)
    const info = await probe(bytes)
    expect(info).toMatchObject({ contentType, width, height, size: bytes.length, isShortEligible: false })
    expect(info.kind).toBe(format === 'gif' ? 'gif' : 'image')
  })

  it('reports the displayed size of a JPEG whose EXIF orientation turns it sideways', async () => {
    const bytes = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#888' } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer()
    expect(await probe(bytes)).toMatchObject({ width: 300, height: 400 })
  })

  it('reads a vertical MP4: container, codec, duration and size', async () => {
    const info = await probe(mp4File({ width: 1080, height: 1920, durationMs: 42_500 }), '.mp4')
    expect(info).toMatchObject({
      kind: 'video',
      contentType: 'video/mp4',
      format: 'mp4',
      codec: 'avc1.64001f',
      width: 1080,
      height: 1920,
      durationMs: 42_500,
      isShortEligible: true,
    })
  })

  it('reads a horizontal MP4 as not a Short', async () => {
    const info = await probe(mp4File({ width: 1920, height: 1080, durationMs: 30_000 }))
    expect(info).toMatchObject({ width: 1920, height: 1080, durationMs: 30_000, isShortEligible: false })
  })

  it('reads a QuickTime file and applies the track rotation', async () => {
    const info = await probe(
      mp4File({ width: 1920, height: 1080, durationMs: 61_000, brand: 'qt  ', rotation: 90 }),
      '.mov',
    )
    expect(info).toMatchObject({
      contentType: 'video/quicktime',
      format: 'mov',
      width: 1080,
      height: 1920,
      durationMs: 61_000,
      isShortEligible: true,
    })
  })

  it('reads a WebM file with the EBML parser', async () => {
    const info = await probe(webmFile({ width: 720, height: 720, durationMs: 12_345 }), '.webm')
    expect(info).toMatchObject({
      kind: 'video',
      contentType: 'video/webm',
      format: 'webm',
      codec: 'vp9',
      width: 720,
      height: 720,
      durationMs: 12_345,
      isShortEligible: true,
    })
  })

  it('leaves the duration of a WebM without one unknown, which is not a Short', async () => {
    const info = await probe(webmFile({ width: 720, height: 1280, codec: 'V_VP8' }))
    expect(info).toMatchObject({ codec: 'vp8', durationMs: undefined, isShortEligible: false })
  })

  it('refuses content that is not media, whatever the URL says', async () => {
    const error = (await probe(Buffer.from('<!doctype html><html>Not found</html>'), '.jpg').catch(
      (e) => e,
    )) as MediaError
    expect(error.reason).toBe('unsupported_type')
    expect(error.message).toMatch(/not a supported image or video \(the URL says \.jpg\)/)
  })

  it('refuses an MP4 without its moov box', async () => {
    const bytes = mp4File({ width: 10, height: 10, durationMs: 1000 })
    const ftypOnly = bytes.subarray(0, bytes.readUInt32BE(0))
    const error = (await probe(ftypOnly).catch((e) => e)) as MediaError
    expect(error.message).toMatch(/no moov box/)
  })
})

describe('pure media rules', () => {
  it.each([
    [{ width: 1080, height: 1920, durationMs: 180_000 }, true],
    [{ width: 1080, height: 1080, durationMs: 1000 }, true],
    [{ width: 1080, height: 1920, durationMs: 180_001 }, false],
    [{ width: 1920, height: 1080, durationMs: 1000 }, false],
    [{ width: 1080, height: 1920, durationMs: undefined }, false],
  ])('decides Short eligibility of %o as %s', (video, expected) => {
    expect(isShortEligible(video)).toBe(expected)
  })

  it.each([
    ['https://x.test/v.mp4', true],
    ['https://x.test/v.MOV', true],
    ['https://x.test/v.webm?sig=1', true],
    ['https://x.test/v.m4v', true],
    ['https://x.test/v.png', false],
    ['https://x.test/mp4', false],
    ['not a url', false],
  ])('says whether %s looks like a video', (url, expected) => {
    expect(looksLikeVideoUrl(url)).toBe(expected)
  })

  it('detects by content, using the extension only to tell MOV from MP4', () => {
    const mp4 = mp4File({ width: 2, height: 2, durationMs: 1 })
    expect(detectType(mp4, '.png')?.contentType).toBe('video/mp4')
    expect(detectType(Buffer.from('GIF89a......'), '.jpg')?.contentType).toBe('image/gif')
    expect(detectType(Buffer.from('%PDF-1.7'), '.png')).toBeUndefined()
  })
})
