import { MediaError } from '../../core/media-port.js'
import type { VideoRules } from '../../core/network-rules.js'
import type { MediaInfo } from './probe.js'

/**
 * Decides, without touching a file, what a probed video needs before a network takes it: nothing (it is
 * sent byte for byte), a conversion to H.264/AAC in MP4 within the network's picture, frame-rate, bitrate
 * and size ceilings, or a refusal. A video longer than the network takes is refused, never cut. Pure.
 */

export type VideoPlan =
  | { action: 'keep' }
  | {
      action: 'convert'
      kind: 'video'
      /** `copy` keeps the coded picture (a remux into MP4); `h264` re-encodes it. */
      video: 'copy' | 'h264'
      /** `copy` keeps the sound, `aac` re-encodes it; a source without sound stays silent either way. */
      audio: 'copy' | 'aac'
      /** Output picture size (even numbers), when the source states its size; else the source's. */
      width?: number
      height?: number
      /** Output frame rate, when the source's is over the network's ceiling. */
      frameRate?: number
      /** Ceiling for the re-encoded picture, bits per second. */
      videoBitrate: number
      /** The converted file must not be larger. */
      maxBytes: number
      /** What changes, in words: `WEBM → MP4 (H.264/AAC)`, `3840x2160 → 1920x1080`, `60 fps → 30 fps`. */
      reasons: string[]
    }

/** Bits per second kept for AAC sound. */
export const AUDIO_BITRATE = 128_000
/** Below this a re-encoded picture is not worth sending: refuse instead of posting mush. */
const MIN_VIDEO_BITRATE = 250_000
/** Share of the byte ceiling a re-encode aims at, leaving room for the container and rate-control drift. */
const SIZE_MARGIN = 0.9

const upper = (format: string) => format.toUpperCase()
const minutes = (ms: number) =>
  `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`
const mb = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`
const mbps = (bits: number) => `${Math.round(bits / 100_000) / 10} Mbps`
const ratioLabel = (width: number, height: number) => `${Math.round((width / height) * 100) / 100}:1`

/** `avc1.64001f` → `h264`; `hvc1…` → `hevc`; `vp09…` → `vp9`; `mp4v.20.9` → `mpeg4`. */
export function videoCodecFamily(codec: string | undefined): string | undefined {
  if (!codec) return undefined
  const tag = codec.toLowerCase().split('.')[0]!
  const families: Record<string, string> = {
    avc1: 'h264',
    avc3: 'h264',
    hvc1: 'hevc',
    hev1: 'hevc',
    vp08: 'vp8',
    vp8: 'vp8',
    vp09: 'vp9',
    vp9: 'vp9',
    av01: 'av1',
    av1: 'av1',
    mp4v: 'mpeg4',
  }
  return families[tag] ?? tag
}

/** `mp4a.40.2` → `aac`; `mp4a.6b` → `mp3`; `Opus` → `opus`. */
export function audioCodecFamily(codec: string | undefined): string | undefined {
  if (!codec) return undefined
  const lower = codec.toLowerCase()
  if (lower.startsWith('mp4a.40')) return 'aac'
  if (lower === 'mp4a.6b' || lower === 'mp4a.69' || lower === '.mp3') return 'mp3'
  return lower.split('.')[0]
}

const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2)

/** @throws {MediaError} when the network cannot take this video in any form Herald makes. */
export function planVideo(info: MediaInfo, video: VideoRules, label: string): VideoPlan {
  const { width, height, durationMs } = info
  if (video.maxDurationMs && durationMs && durationMs > video.maxDurationMs)
    throw new MediaError(
      'too_large',
      `${label} takes videos up to ${minutes(video.maxDurationMs)} long; this one is ${minutes(durationMs)} (Herald does not cut videos)`,
    )
  if (video.minDurationMs && durationMs && durationMs < video.minDurationMs)
    throw new MediaError(
      'unsupported_type',
      `${label} takes videos at least ${minutes(video.minDurationMs)} long; this one is ${minutes(durationMs)}`,
    )
  if (video.aspect && width && height) {
    const ratio = width / height
    if (ratio < video.aspect.min || ratio > video.aspect.max)
      throw new MediaError(
        'unsupported_type',
        `${label} takes videos between ${video.aspect.label}; this one is ${ratioLabel(width, height)}`,
      )
  }

  const reasons: string[] = []
  const seconds = durationMs ? durationMs / 1000 : undefined
  const containerOk = (video.containers as readonly string[]).includes(info.format)
  const videoFamily = videoCodecFamily(info.codec)
  const audioFamily = audioCodecFamily(info.audioCodec)
  // A WebM's sound is not probed (Opus or Vorbis): fine where WebM is taken, re-encoded when leaving it.
  const audioOk = audioFamily
    ? video.audioCodecs.includes(audioFamily)
    : containerOk || info.format !== 'webm'
  const codecOk = videoFamily !== undefined && video.videoCodecs.includes(videoFamily)
  let reencode = !codecOk

  let outWidth: number | undefined
  let outHeight: number | undefined
  if (width && height) {
    const long = Math.max(width, height)
    const short = Math.min(width, height)
    const scale = Math.min(1, video.maxLongSide / long, video.maxShortSide / short)
    if (scale < 1) {
      outWidth = even(width * scale)
      outHeight = even(height * scale)
      reasons.push(`${width}x${height} → ${outWidth}x${outHeight}`)
      reencode = true
    }
  }

  let frameRate: number | undefined
  if (info.frameRate && info.frameRate > video.maxFrameRate + 0.01) {
    frameRate = info.frameRate >= video.maxFrameRate * 2 - 0.1 ? info.frameRate / 2 : video.maxFrameRate
    frameRate = Math.min(video.maxFrameRate, Math.round(frameRate * 100) / 100)
    reasons.push(`${Math.round(info.frameRate)} fps → ${Math.round(frameRate)} fps`)
    reencode = true
  }

  // Squeezing the bitrate or the size leaves no room for sound at its source rate: it becomes AAC too.
  let squeeze = false
  const bitrate = seconds ? (info.size * 8) / seconds : undefined
  if (bitrate && bitrate > video.maxBitrate) {
    reasons.push(`${mbps(bitrate)} → at most ${mbps(video.maxBitrate)}`)
    reencode = squeeze = true
  }

  let videoBitrate = video.maxBitrate - AUDIO_BITRATE
  if (info.size > video.maxBytes) {
    if (!seconds)
      throw new MediaError(
        'too_large',
        `${label} takes videos up to ${mb(video.maxBytes)}; this one is ${mb(info.size)} and states no length to re-encode it by`,
      )
    videoBitrate = Math.min(videoBitrate, (video.maxBytes * 8 * SIZE_MARGIN) / seconds - AUDIO_BITRATE)
    if (videoBitrate < MIN_VIDEO_BITRATE)
      throw new MediaError(
        'too_large',
        `${label} takes videos up to ${mb(video.maxBytes)}; this one is ${mb(info.size)} and too long to fit at a watchable quality`,
      )
    reasons.push(`${mb(info.size)} → under ${mb(video.maxBytes)}`)
    reencode = squeeze = true
  }

  if (!codecOk)
    reasons.unshift(
      `${upper(info.format)}${info.codec ? ` (${upper(videoFamily ?? info.codec)})` : ''} → MP4 (H.264/AAC)`,
    )
  else if (!containerOk) reasons.unshift(`${upper(info.format)} → MP4`)
  if (!audioOk && codecOk) reasons.push(`${upper(audioFamily ?? 'unknown')} sound → AAC`)

  if (reasons.length === 0) return { action: 'keep' }
  return {
    action: 'convert',
    kind: 'video',
    video: reencode ? 'h264' : 'copy',
    audio: audioOk && !squeeze ? 'copy' : 'aac',
    ...(outWidth && outHeight ? { width: outWidth, height: outHeight } : {}),
    ...(frameRate ? { frameRate } : {}),
    videoBitrate,
    maxBytes: video.maxBytes,
    reasons,
  }
}
