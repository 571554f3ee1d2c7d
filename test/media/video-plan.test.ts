import { describe, expect, it } from 'vitest'
import { MediaError } from '../../src/core/media-port.js'
import { fetchCeiling, networkMediaRules } from '../../src/core/network-rules.js'
import { planMedia } from '../../src/modules/media/conversion-plan.js'
import type { MediaInfo } from '../../src/modules/media/probe.js'
import { audioCodecFamily, planVideo, videoCodecFamily } from '../../src/modules/media/video-plan.js'

const MB = 1024 * 1024
type Net = keyof typeof networkMediaRules
const all: Net[] = ['twitter', 'youtube', 'bluesky', 'linkedin', 'facebook', 'instagram', 'threads']

/** A probed H.264/AAC MP4, 1280x720 at 30 fps, 20 s, 5 MB: every network takes it as it is. */
const clip = (over: Partial<MediaInfo> = {}) =>
  ({
    kind: 'video',
    format: 'mp4',
    contentType: 'video/mp4',
    codec: 'avc1.64001f',
    audioCodec: 'mp4a.40.2',
    frameRate: 30,
    size: 5 * MB,
    width: 1280,
    height: 720,
    durationMs: 20_000,
    isShortEligible: false,
    ...over,
  }) as MediaInfo

const plan = (network: Net, over: Partial<MediaInfo> = {}) =>
  planMedia(clip(over), networkMediaRules[network])

function refusal(network: Net, over: Partial<MediaInfo>): MediaError {
  try {
    plan(network, over)
  } catch (error) {
    if (error instanceof MediaError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

describe('the video plan', () => {
  it('has a container, codecs, picture, frame-rate, bitrate and size ceiling for every network', () => {
    for (const network of all) {
      const video = networkMediaRules[network].video!
      expect(video.containers, network).toContain('mp4')
      expect(video.videoCodecs, network).toContain('h264')
      expect(video.audioCodecs, network).toContain('aac')
      expect(video.maxLongSide, network).toBeGreaterThanOrEqual(video.maxShortSide)
      expect(video.maxFrameRate, network).toBeGreaterThanOrEqual(30)
      expect(video.maxBitrate, network).toBeGreaterThan(1_000_000)
      expect(video.sourceMaxBytes, network).toBeGreaterThanOrEqual(video.maxBytes)
    }
    expect(networkMediaRules.twitter.video).toMatchObject({ maxLongSide: 1280, maxShortSide: 1024 })
    expect(networkMediaRules.bluesky.video).toMatchObject({ maxBytes: 100 * MB, maxDurationMs: 180_000 })
    expect(networkMediaRules.threads.video).toMatchObject({ maxDurationMs: 300_000, maxLongSide: 1920 })
    expect(networkMediaRules.instagram.video).toMatchObject({ maxBytes: 300 * MB, maxDurationMs: 900_000 })
    // Spec §1 YouTube rule 2: the file is downloaded with a maximum size of 256 MB.
    expect(networkMediaRules.youtube.video).toMatchObject({ maxBytes: 256 * MB, sourceMaxBytes: 256 * MB })
    expect(fetchCeiling(networkMediaRules.youtube)).toBe(256 * MB)
    // Elsewhere a source larger than the network takes may be fetched to be re-encoded under its ceiling.
    expect(fetchCeiling(networkMediaRules.bluesky)).toBe(1024 * MB)
  })

  it.each(all)('keeps an H.264/AAC MP4 within the limits for %s, byte for byte', (network) => {
    expect(plan(network)).toEqual({ action: 'keep' })
  })

  it.each(['twitter', 'bluesky', 'linkedin', 'facebook', 'instagram', 'threads'] as const)(
    're-encodes a VP9 WebM to H.264/AAC in MP4 for %s',
    (network) => {
      const result = plan(network, {
        format: 'webm',
        contentType: 'video/webm',
        codec: 'vp9',
        audioCodec: undefined,
      })
      expect(result).toMatchObject({ action: 'convert', video: 'h264', audio: 'aac' })
      expect(result.action === 'convert' && result.reasons[0]).toBe('WEBM (VP9) → MP4 (H.264/AAC)')
    },
  )

  it('keeps a VP9 WebM for YouTube, which takes WebM', () => {
    expect(
      plan('youtube', { format: 'webm', contentType: 'video/webm', codec: 'vp9', audioCodec: undefined }),
    ).toEqual({ action: 'keep' })
  })

  it.each([
    ['instagram', 'convert'],
    ['threads', 'convert'],
    ['linkedin', 'convert'],
    ['twitter', 'convert'],
    ['bluesky', 'convert'],
    ['facebook', 'keep'],
    ['youtube', 'keep'],
  ] as const)('remuxes an H.264/AAC MOV into MP4 without re-encoding for %s (%s)', (network, action) => {
    const result = plan(network, { format: 'mov', contentType: 'video/quicktime' })
    expect(result.action).toBe(action)
    if (result.action === 'convert')
      expect(result).toMatchObject({ video: 'copy', audio: 'copy', reasons: ['MOV → MP4'] })
  })

  it('re-encodes an MPEG-4 Part 2 MOV for Instagram and names the codec', () => {
    const result = plan('instagram', { format: 'mov', codec: 'mp4v.20.9' })
    expect(result).toMatchObject({
      action: 'convert',
      video: 'h264',
      reasons: ['MOV (MPEG4) → MP4 (H.264/AAC)'],
    })
  })

  it.each([
    ['twitter', '3840x2160 → 1280x720'],
    ['bluesky', '3840x2160 → 1920x1080'],
    ['instagram', '3840x2160 → 1920x1080'],
    ['threads', '3840x2160 → 1920x1080'],
  ] as const)('scales 4K down for %s: %s', (network, reason) => {
    const result = plan(network, { width: 3840, height: 2160 })
    expect(result).toMatchObject({ action: 'convert', video: 'h264', reasons: [reason] })
  })

  it.each(['linkedin', 'facebook', 'youtube'] as const)('keeps 4K for %s', (network) => {
    expect(plan(network, { width: 3840, height: 2160 })).toEqual({ action: 'keep' })
  })

  it('scales a portrait video by its long side, keeping it upright and even-sized', () => {
    const result = plan('instagram', { width: 2160, height: 3840 })
    expect(result).toMatchObject({ width: 1080, height: 1920 })
    const odd = plan('twitter', { width: 1081, height: 1921 })
    expect(odd).toMatchObject({ width: 720, height: 1280 })
  })

  it('halves 120 fps to 60 fps and leaves 60 fps alone', () => {
    expect(plan('instagram', { frameRate: 120 })).toMatchObject({
      frameRate: 60,
      reasons: ['120 fps → 60 fps'],
    })
    expect(plan('instagram', { frameRate: 90 })).toMatchObject({
      frameRate: 60,
      reasons: ['90 fps → 60 fps'],
    })
    expect(plan('instagram', { frameRate: 59.94 })).toEqual({ action: 'keep' })
  })

  it('re-encodes a video over the bitrate ceiling, sound included', () => {
    const result = plan('twitter', { size: 200 * MB, durationMs: 20_000 })
    expect(result).toMatchObject({ action: 'convert', video: 'h264', audio: 'aac' })
    expect(result.action === 'convert' && result.reasons).toEqual(['83.9 Mbps → at most 25 Mbps'])
  })

  it('re-encodes a file over the size ceiling to a bitrate that fits it', () => {
    const result = plan('bluesky', { size: 150 * MB, durationMs: 170_000 })
    if (result.action !== 'convert' || result.kind !== 'video') throw new Error('expected a video conversion')
    expect(result.reasons).toEqual(['150 MB → under 100 MB'])
    expect(result.maxBytes).toBe(100 * MB)
    const bytes = ((result.videoBitrate + 128_000) * 170) / 8
    expect(bytes).toBeLessThan(100 * MB)
    expect(bytes).toBeGreaterThan(80 * MB)
  })

  it.each([
    [
      'bluesky',
      { durationMs: 181_000 },
      'Bluesky takes videos up to 3:00 long; this one is 3:01 (Herald does not cut videos)',
    ],
    [
      'threads',
      { durationMs: 6 * 60_000 },
      'Threads takes videos up to 5:00 long; this one is 6:00 (Herald does not cut videos)',
    ],
    [
      'instagram',
      { durationMs: 16 * 60_000 },
      'Instagram takes videos up to 15:00 long; this one is 16:00 (Herald does not cut videos)',
    ],
    [
      'linkedin',
      { durationMs: 31 * 60_000 },
      'LinkedIn takes videos up to 30:00 long; this one is 31:00 (Herald does not cut videos)',
    ],
    ['twitter', { width: 4000, height: 1000 }, 'X takes videos between 1:3 to 3:1; this one is 4:1'],
    [
      'youtube',
      { size: 300 * MB, durationMs: undefined },
      'YouTube takes videos up to 256 MB; this one is 300 MB and states no length to re-encode it by',
    ],
    [
      'youtube',
      { size: 900 * MB, durationMs: 4 * 3600_000 },
      'YouTube takes videos up to 256 MB; this one is 900 MB and too long to fit at a watchable quality',
    ],
  ] as const)('refuses for %s: %o', (network, over, message) => {
    const error = refusal(network, over as Partial<MediaInfo>)
    expect(error.message).toBe(message)
  })

  it('refuses a too-long video even when it would also need converting', () => {
    expect(refusal('bluesky', { format: 'webm', codec: 'vp9', durationMs: 600_000 }).reason).toBe('too_large')
  })

  it('names codec families from container codec strings', () => {
    expect(
      ['avc1.64001f', 'hvc1.1.6.L93.B0', 'vp09.00.10.08', 'vp8', 'av01.0.04M.08', 'mp4v.20.9'].map(
        videoCodecFamily,
      ),
    ).toEqual(['h264', 'hevc', 'vp9', 'vp8', 'av1', 'mpeg4'])
    expect(['mp4a.40.2', 'mp4a.6b', 'Opus', undefined].map(audioCodecFamily)).toEqual([
      'aac',
      'mp3',
      'opus',
      undefined,
    ])
  })

  it('re-encodes only the sound when the picture is fine but the sound is not', () => {
    const result = planVideo(clip({ audioCodec: 'mp4a.6b' }), networkMediaRules.linkedin.video!, 'LinkedIn')
    expect(result).toMatchObject({
      action: 'convert',
      video: 'copy',
      audio: 'aac',
      reasons: ['MP3 sound → AAC'],
    })
  })
})
