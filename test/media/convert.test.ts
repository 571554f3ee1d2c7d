import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, describe, expect, it } from 'vitest'
import type { MediaError } from '../../src/core/media-port.js'
import { type NetworkMediaRules, networkMediaRules } from '../../src/core/network-rules.js'
import { type MediaPlan, planMedia } from '../../src/modules/media/conversion-plan.js'
import { convertImage } from '../../src/modules/media/convert.js'
import { type MediaInfo, probeFile } from '../../src/modules/media/probe.js'
import { noisePng, solidImage } from './fixtures.js'

const dir = mkdtempSync(path.join(tmpdir(), 'herald-convert-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let counter = 0
async function save(bytes: Buffer) {
  const file = path.join(dir, `src${counter++}`)
  writeFileSync(file, bytes)
  const info = await probeFile({
    path: file,
    head: bytes.subarray(0, 4096),
    size: bytes.length,
    extension: '',
  })
  return { file, info }
}

/** Plans and converts for a network the way the media service does; returns the probe of the result. */
async function convertFor(rules: NetworkMediaRules, bytes: Buffer) {
  const { file, info } = await save(bytes)
  const before = createHash('sha256').update(readFileSync(file)).digest('hex')
  const plan = planMedia(info, rules)
  if (plan.action === 'keep' || plan.kind === 'video') return { plan, info, file, original: file }
  const out = await convertImage(file, plan, path.join(dir, `out${counter++}`))
  const after = await probeFile({
    path: out.path,
    head: readFileSync(out.path).subarray(0, 4096),
    size: statSync(out.path).size,
    extension: '',
  })
  // The original is never changed in place.
  expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(before)
  return { plan, info: after, file: out.path, original: file }
}

const refusal = (fn: () => MediaPlan): MediaError => {
  try {
    fn()
  } catch (error) {
    return error as MediaError
  }
  throw new Error('expected a refusal')
}

describe('per-network conversion', () => {
  it('declares rules for every network', () => {
    expect(Object.keys(networkMediaRules).sort()).toEqual([
      'bluesky',
      'facebook',
      'googlebusiness',
      'instagram',
      'linkedin',
      'mastodon',
      'pinterest',
      'threads',
      'tiktok',
      'twitter',
      'youtube',
    ])
  })

  it('re-encodes a noisy 3000x3000 PNG for Bluesky under 1,000,000 bytes and 2000 px', async () => {
    const source = await noisePng(3000, 3000)
    expect(source.length).toBeGreaterThan(5 * 1024 * 1024)
    const { info } = await convertFor(networkMediaRules.bluesky, source)
    expect(info.size).toBeLessThan(1_000_000)
    expect(info.contentType).toBe('image/jpeg')
    expect(Math.max(info.width!, info.height!)).toBeLessThanOrEqual(2000)
  })

  it('re-encodes a noisy PNG for X under 5 MB', async () => {
    const { info } = await convertFor(networkMediaRules.twitter, await noisePng(3000, 3000))
    expect(info.size).toBeLessThan(5 * 1024 * 1024)
    expect(['image/jpeg', 'image/png']).toContain(info.contentType)
  })

  it('keeps a small PNG for X unchanged', async () => {
    const { plan } = await convertFor(networkMediaRules.twitter, await solidImage(800, 600, 'png'))
    expect(plan.action).toBe('keep')
  })

  it('turns a tall PNG into a padded JPEG inside Instagram’s 4:5 to 1.91:1 range', async () => {
    const { info, plan } = await convertFor(networkMediaRules.instagram, await solidImage(1000, 3000, 'png'))
    expect(plan.action).toBe('convert')
    expect(info.contentType).toBe('image/jpeg')
    const ratio = info.width! / info.height!
    expect(ratio).toBeGreaterThanOrEqual(0.8)
    expect(ratio).toBeLessThanOrEqual(1.91)
    expect(info.width).toBeLessThanOrEqual(1440)
  })

  it('pads a panorama for Instagram down to 1.91:1', async () => {
    const { info } = await convertFor(networkMediaRules.instagram, await solidImage(4000, 1000, 'jpeg'))
    const ratio = info.width! / info.height!
    expect(ratio).toBeGreaterThanOrEqual(0.8)
    expect(ratio).toBeLessThanOrEqual(1.91)
    expect(info.contentType).toBe('image/jpeg')
  })

  it('converts WebP to JPEG for Facebook and keeps JPEG within limits', async () => {
    expect(
      (await convertFor(networkMediaRules.facebook, await solidImage(500, 500, 'webp'))).info.contentType,
    ).toBe('image/jpeg')
    expect(
      (await convertFor(networkMediaRules.facebook, await solidImage(500, 500, 'jpeg'))).plan.action,
    ).toBe('keep')
  })

  it('caps the size at the network’s maximum dimensions', async () => {
    const { info } = await convertFor(networkMediaRules.threads, await solidImage(3000, 2000, 'jpeg'))
    expect(info.width).toBe(1440)
    expect(info.height).toBe(960)
  })

  it('flattens transparency onto white for JPEG', async () => {
    const transparent = await sharp({
      create: { width: 100, height: 100, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .webp()
      .toBuffer()
    const { file } = await convertFor(networkMediaRules.instagram, transparent)
    const { data } = await sharp(file).raw().toBuffer({ resolveWithObject: true })
    expect(data[0]).toBeGreaterThan(240)
  })

  it('refuses an image outside the aspect range when the rule says refuse', () => {
    const rules: NetworkMediaRules = {
      ...networkMediaRules.instagram,
      image: {
        ...networkMediaRules.instagram.image!,
        aspect: { min: 0.8, max: 1.91, label: '4:5 to 1.91:1', outside: 'refuse' },
      },
    }
    const info = {
      kind: 'image',
      format: 'jpeg',
      contentType: 'image/jpeg',
      size: 1000,
      width: 1000,
      height: 3000,
    } as MediaInfo
    const error = refusal(() => planMedia(info, rules))
    expect(error.reason).toBe('unsupported_type')
    expect(error.message).toBe('Instagram takes images between 4:5 to 1.91:1; this one is 0.33:1')
  })

  const video = (over: Partial<MediaInfo>) =>
    ({
      kind: 'video',
      format: 'mp4',
      contentType: 'video/mp4',
      size: 1000,
      width: 1080,
      height: 1920,
      durationMs: 10_000,
      isShortEligible: true,
      ...over,
    }) as MediaInfo

  it.each([
    ['youtube', { kind: 'image', format: 'png', contentType: 'image/png' }, /YouTube needs a video/],
    ['youtube', { size: 300 * 1024 * 1024, durationMs: undefined }, /YouTube takes videos up to 256 MB/],
    ['threads', { durationMs: 6 * 60_000 }, /Threads takes videos up to 5:00 long/],
    ['twitter', { width: 4000, height: 1000 }, /X takes videos between 1:3 to 3:1/],
  ] as const)('refuses for %s: %o', (network, over, message) => {
    const error = refusal(() => planMedia(video(over as Partial<MediaInfo>), networkMediaRules[network]))
    expect(error.message).toMatch(message)
  })

  it('remuxes an H.264 or HEVC MOV into MP4 for Threads without re-encoding the picture', () => {
    for (const codec of ['avc1.64001f', 'hvc1.1.6.L93.B0'])
      expect(
        planMedia(video({ format: 'mov', contentType: 'video/quicktime', codec }), networkMediaRules.threads),
      ).toMatchObject({ action: 'convert', kind: 'video', video: 'copy', reasons: ['MOV → MP4'] })
  })

  it('re-encodes a Threads video whose codec is not H.264 or HEVC, or could not be read, to H.264', () => {
    for (const codec of ['av01.0.08M.08', undefined])
      expect(planMedia(video({ codec }), networkMediaRules.threads)).toMatchObject({
        action: 'convert',
        kind: 'video',
        video: 'h264',
      })
  })

  it('accepts a WebM for YouTube unchanged', () => {
    expect(
      planMedia(
        video({ format: 'webm', contentType: 'video/webm', codec: 'vp9' }),
        networkMediaRules.youtube,
      ),
    ).toEqual({
      action: 'keep',
    })
  })
})
