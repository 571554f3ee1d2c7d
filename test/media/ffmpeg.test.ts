import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { MediaError } from '../../src/core/media-port.js'
import { startSummary } from '../../src/main.js'
import { convertVideo, ffmpegArguments } from '../../src/modules/media/convert-video.js'
import {
  describeFfmpeg,
  ffmpegVersion,
  findFfmpeg,
  lookForFfmpeg,
  MIN_FFMPEG_VERSION,
  versionProblem,
} from '../../src/modules/media/ffmpeg.js'
import type { VideoPlan } from '../../src/modules/media/video-plan.js'
import { loadConfig } from '../../src/platform/config.js'
import { h264Clip, webmClip } from './video-fixtures.js'

/** A maintained ffmpeg, checked at start, confined while it decodes untrusted video. */
describe('ffmpeg discovery', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-ffmpeg-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  /** A stand-in executable that answers `-version` as ffmpeg would, naming `version`. */
  function fakeFfmpeg(name: string, version: string | undefined): string {
    const file = path.join(dir, name)
    writeFileSync(
      file,
      version ? `#!/bin/sh\necho "ffmpeg version ${version} Copyright"\n` : '#!/bin/sh\nexit 1\n',
    )
    chmodSync(file, 0o755)
    return file
  }

  it('no longer depends on @ffmpeg-installer/ffmpeg (ffmpeg 4.1, built in 2018)', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
      dependencies: Record<string, string>
    }
    expect(Object.keys(manifest.dependencies).filter((name) => name.includes('ffmpeg'))).toEqual([])
  })

  it('finds the system ffmpeg on PATH and reads its version, at least the documented minimum', async () => {
    const found = await findFfmpeg()
    expect(found?.path).toBe('ffmpeg')
    expect(versionProblem(found!.version)).toBeUndefined()
    expect(describeFfmpeg(found)).toBe(`ffmpeg (${found?.version})`)
  })

  it('refuses an ffmpeg older than the minimum, and says why on the start line', async () => {
    const old = fakeFfmpeg('old-ffmpeg', '4.1')
    const lookup = await lookForFfmpeg({ configured: old })
    expect(lookup.ffmpeg).toBeUndefined()
    expect(lookup.refused?.version).toBe('4.1')
    expect(describeFfmpeg(lookup)).toBe(
      `none (${old} not used: 4.1 is older than ${MIN_FFMPEG_VERSION.join('.')}, the oldest Herald decodes untrusted video with)`,
    )
    expect(
      await findFfmpeg({ onPath: fakeFfmpeg('git-build', 'N-47683-g0e8eb07980-static') }),
    ).toBeUndefined()
    expect(versionProblem('5.0.3')).toMatch(/older than 5\.1/)
    expect(versionProblem('5.1.9-0+deb12u1')).toBeUndefined()
    expect(versionProblem('n7.1')).toBeUndefined()
  })

  it('uses HERALD_FFMPEG_PATH over PATH', async () => {
    const custom = fakeFfmpeg('custom-ffmpeg', '7.1-custom')
    expect(await findFfmpeg({ configured: custom })).toEqual({ path: custom, version: '7.1-custom' })
  })

  it('reports none when HERALD_FFMPEG_PATH is none, or names something that is not ffmpeg', async () => {
    expect(await findFfmpeg({ configured: 'none' })).toBeUndefined()
    expect(await findFfmpeg({ configured: fakeFfmpeg('broken', undefined) })).toBeUndefined()
    expect(await findFfmpeg({ configured: path.join(dir, 'missing') })).toBeUndefined()
    expect(await findFfmpeg({ onPath: 'herald-no-such-ffmpeg' })).toBeUndefined()
    expect(await ffmpegVersion(path.join(dir, 'nothing-here'))).toBeUndefined()
    expect(describeFfmpeg(undefined)).toBe('none')
  })

  it('reads the conversion settings from the config, and puts ffmpeg on the start line', async () => {
    expect(loadConfig({}).videoConversion).toEqual({
      ffmpegPath: undefined,
      timeoutMs: 600_000,
      concurrency: 2,
      memoryMb: 4096,
    })
    expect(
      loadConfig({
        HERALD_FFMPEG_PATH: '/opt/ffmpeg',
        HERALD_VIDEO_CONVERT_TIMEOUT_MS: '1000',
        HERALD_VIDEO_CONVERT_CONCURRENCY: '1',
        HERALD_VIDEO_CONVERT_CPU_SECONDS: '30',
        HERALD_VIDEO_CONVERT_MEMORY_MB: '512',
      }).videoConversion,
    ).toEqual({ ffmpegPath: '/opt/ffmpeg', timeoutMs: 1000, concurrency: 1, cpuSeconds: 30, memoryMb: 512 })
    const config = loadConfig({})
    expect(startSummary(config, 'all', 'sqlite').ffmpeg).toBe('none')
    const found = await lookForFfmpeg()
    expect(startSummary(config, 'all', 'sqlite', describeFfmpeg(found)).ffmpeg).toBe(
      `ffmpeg (${found.ffmpeg?.version})`,
    )
  })
})

describe('confined conversions', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-confined-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const plan: Extract<VideoPlan, { action: 'convert' }> = {
    action: 'convert',
    kind: 'video',
    reasons: ['test'],
    video: 'h264',
    audio: 'aac',
    width: 320,
    height: 240,
    frameRate: 25,
    videoBitrate: 500_000,
    maxBytes: 50 * 1024 * 1024,
  }

  it('allows only local files and the one demuxer the bytes name', () => {
    const args = ffmpegArguments('in.webm', plan, 'out.mp4', 'veryfast', 'matroska')
    const joined = args.join(' ')
    expect(joined).toContain('-protocol_whitelist file')
    expect(joined).toContain('-format_whitelist matroska,webm -f matroska -i in.webm')
  })

  it('refuses a playlist that would make ffmpeg fetch from the network, before ffmpeg runs', async () => {
    // An HLS playlist named .mp4: ffmpeg's probing would follow its URLs (SSRF) if it were let choose.
    const playlist = path.join(dir, 'evil.mp4')
    writeFileSync(
      playlist,
      '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nhttp://169.254.169.254/latest/meta-data\n#EXT-X-ENDLIST\n',
    )
    const error = await convertVideo(playlist, plan, path.join(dir, 'out.mp4'), {
      ffmpeg: 'ffmpeg',
      timeoutMs: 10_000,
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MediaError)
    expect((error as MediaError).message).toContain('not an MP4, MOV or WebM file')
  })

  it('converts MP4 and WebM sources under the limits', async () => {
    for (const source of [
      await h264Clip(path.join(dir, 'a.mp4')),
      await webmClip(path.join(dir, 'b.webm')),
    ]) {
      const out = await convertVideo(source, plan, path.join(dir, `${path.basename(source)}.mp4`), {
        ffmpeg: 'ffmpeg',
        timeoutMs: 60_000,
        limits: { cpuSeconds: 60, memoryMb: 2048 },
      })
      expect(out.size).toBeGreaterThan(0)
    }
  })

  it('stops ffmpeg at its memory limit with a short reason', async () => {
    const source = await h264Clip(path.join(dir, 'c.mp4'))
    const error = await convertVideo(source, plan, path.join(dir, 'c-out.mp4'), {
      ffmpeg: 'ffmpeg',
      timeoutMs: 60_000,
      limits: { memoryMb: 16 },
    }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MediaError)
    expect((error as MediaError).reason).toBe('conversion_failed')
  })

  it('stops ffmpeg at its CPU-time limit', async () => {
    const source = await h264Clip(path.join(dir, 'd.mp4'), { seconds: 5, width: 854, height: 480 })
    const started = Date.now()
    const error = await convertVideo(
      source,
      { ...plan, width: 854, height: 480 },
      path.join(dir, 'd-out.mp4'),
      { ffmpeg: 'ffmpeg', timeoutMs: 120_000, preset: 'veryslow', limits: { cpuSeconds: 1 } },
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MediaError)
    expect((error as MediaError).message).toContain('CPU-time limit')
    expect(Date.now() - started).toBeLessThan(60_000)
  })
})
