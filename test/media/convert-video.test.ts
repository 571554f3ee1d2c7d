import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MediaError } from '../../src/core/media-port.js'
import { networkMediaRules } from '../../src/core/network-rules.js'
import { planMedia } from '../../src/modules/media/conversion-plan.js'
import { convertVideo, ffmpegArguments } from '../../src/modules/media/convert-video.js'
import { type MediaInfo, probeFile } from '../../src/modules/media/probe.js'
import type { VideoPlan } from '../../src/modules/media/video-plan.js'
import { ffmpegPath, h264Clip, movClip, processesMentioning, webmClip } from './video-fixtures.js'

type Convert = Extract<VideoPlan, { action: 'convert' }>

describe('the video converter', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-convert-video-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  let webm: string
  let mov: string
  let long: string
  beforeAll(async () => {
    ;[webm, mov, long] = await Promise.all([
      webmClip(path.join(dir, 'clip.webm')),
      movClip(path.join(dir, 'clip.mov'), { width: 640, height: 480, fps: 50 }),
      // Long and large enough that re-encoding it takes seconds, so a timeout or an abort lands mid-way.
      movClip(path.join(dir, 'long.mov'), { seconds: 30, width: 1280, height: 720 }),
    ])
  }, 120_000)

  const probe = (file: string): Promise<MediaInfo> =>
    probeFile({
      path: file,
      head: readFileSync(file).subarray(0, 4096),
      size: statSync(file).size,
      extension: path.extname(file),
    })

  async function planFor(file: string, network: keyof typeof networkMediaRules): Promise<Convert> {
    const plan = planMedia(await probe(file), networkMediaRules[network])
    if (plan.action !== 'convert' || plan.kind !== 'video')
      throw new Error(`expected a video conversion, got ${plan.action}`)
    return plan
  }

  it('turns a VP8/Vorbis WebM into an H.264/AAC MP4 with its index first', async () => {
    const plan = await planFor(webm, 'linkedin')
    expect(plan.reasons).toEqual(['WEBM (VP8) → MP4 (H.264/AAC)'])
    const out = await convertVideo(webm, plan, path.join(dir, 'webm.mp4'), {
      ffmpeg: ffmpegPath,
      timeoutMs: 60_000,
    })
    expect(out).toMatchObject({ contentType: 'video/mp4', extension: 'mp4' })
    const info = await probe(out.path)
    expect(info).toMatchObject({ format: 'mp4', width: 320, height: 240, audioCodec: 'mp4a.40.2' })
    expect(info.codec).toMatch(/^avc1\.64/)
    expect(info.durationMs).toBeGreaterThan(1900)
    // +faststart: moov comes before mdat.
    const bytes = readFileSync(out.path)
    expect(bytes.indexOf('moov')).toBeLessThan(bytes.indexOf('mdat'))
  })

  it('scales and lowers the frame rate as planned', async () => {
    const plan: Convert = { ...(await planFor(mov, 'instagram')), width: 320, height: 240, frameRate: 25 }
    const out = await convertVideo(mov, plan, path.join(dir, 'small.mp4'), {
      ffmpeg: ffmpegPath,
      timeoutMs: 60_000,
    })
    const info = await probe(out.path)
    expect(info).toMatchObject({ width: 320, height: 240, frameRate: 25 })
    expect(info.codec).toMatch(/^avc1/)
  })

  it('asks ffmpeg for H.264 High, yuv420p, AAC, faststart and the bitrate ceiling', () => {
    const plan: Convert = {
      action: 'convert',
      kind: 'video',
      video: 'h264',
      audio: 'aac',
      width: 1280,
      height: 720,
      frameRate: 30,
      videoBitrate: 5_000_000,
      maxBytes: 100,
      reasons: [],
    }
    const args = ffmpegArguments('in.webm', plan, 'out.mp4').join(' ')
    expect(args).toContain(
      '-vf scale=1280:720,fps=30 -c:v libx264 -preset veryfast -profile:v high -pix_fmt yuv420p',
    )
    expect(args).toContain('-maxrate 5000000 -bufsize 10000000')
    expect(args).toContain('-c:a aac -b:a 128k -movflags +faststart -f mp4 out.mp4')
    const remux = ffmpegArguments('in.mov', { ...plan, video: 'copy', audio: 'copy' }, 'out.mp4').join(' ')
    expect(remux).toContain('-c:v copy -c:a copy -movflags +faststart')
    expect(remux).not.toContain('libx264')
  })

  it('stops ffmpeg at the time limit with a short reason and leaves no ffmpeg running', async () => {
    const plan = await planFor(long, 'instagram')
    const target = path.join(dir, 'timeout-target.mp4')
    const started = Date.now()
    const error = await convertVideo(long, plan, target, { ffmpeg: ffmpegPath, timeoutMs: 300 }).catch(
      (e) => e,
    )
    expect(error).toBeInstanceOf(MediaError)
    expect(error).toMatchObject({
      reason: 'conversion_failed',
      message: 'The video conversion took longer than 0.3 s and was stopped',
    })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(processesMentioning(target)).toEqual([])
  })

  it("kills ffmpeg when the caller's signal fires", async () => {
    const plan = await planFor(long, 'instagram')
    const target = path.join(dir, 'abort-target.mp4')
    const controller = new AbortController()
    const running = convertVideo(long, plan, target, {
      ffmpeg: ffmpegPath,
      timeoutMs: 60_000,
      signal: controller.signal,
    })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(processesMentioning(target).length).toBe(1)
    controller.abort()
    const error = await running.catch((e) => e)
    expect(error).toMatchObject({
      reason: 'conversion_failed',
      message: 'The video conversion was cancelled',
    })
    expect(processesMentioning(target)).toEqual([])
  })

  it('fails with a one-line reason, not ffmpeg’s whole log, when the source is not a video', async () => {
    const plan = await planFor(webm, 'linkedin')
    const junk = path.join(dir, 'junk.webm')
    const { writeFileSync } = await import('node:fs')
    // WebM's magic number, then junk: it passes the container check and fails inside ffmpeg.
    writeFileSync(junk, Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(4092, 7)]))
    const error = await convertVideo(junk, plan, path.join(dir, 'junk.mp4'), {
      ffmpeg: ffmpegPath,
      timeoutMs: 60_000,
    }).catch((e) => e)
    expect(error).toMatchObject({ reason: 'conversion_failed' })
    expect(error.message).toMatch(/^The video could not be converted: /)
    expect(error.message).not.toContain('\n')
    expect(error.message.length).toBeLessThan(300)
  })

  it('refuses a result still over the byte ceiling', async () => {
    const plan: Convert = { ...(await planFor(webm, 'linkedin')), maxBytes: 1000 }
    const error = await convertVideo(webm, plan, path.join(dir, 'big.mp4'), {
      ffmpeg: ffmpegPath,
      timeoutMs: 60_000,
    }).catch((e) => e)
    expect(error).toMatchObject({ reason: 'conversion_failed' })
    expect(error.message).toMatch(/over the network's 0 MB/)
  })

  it('reports a missing ffmpeg as a conversion failure', async () => {
    const plan = await planFor(webm, 'linkedin')
    const error = await convertVideo(webm, plan, path.join(dir, 'none.mp4'), {
      ffmpeg: path.join(dir, 'no-ffmpeg-here'),
      timeoutMs: 60_000,
    }).catch((e) => e)
    expect(error).toMatchObject({
      reason: 'conversion_failed',
      message: 'ffmpeg could not be started (ENOENT)',
    })
  })

  it('makes the H.264 fixture the plan keeps', async () => {
    const kept = await h264Clip(path.join(dir, 'kept.mp4'))
    expect(planMedia(await probe(kept), networkMediaRules.instagram)).toEqual({ action: 'keep' })
  })
})
