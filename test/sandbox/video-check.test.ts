import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MetaSandboxState } from '../../src/sandbox/meta/state.js'
import { inspectReceivedVideo, isH264, isHevc } from '../../src/sandbox/video-check.js'
import { mp4File } from '../media/fixtures.js'
import { h264Clip, movClip, webmClip } from '../media/video-fixtures.js'

describe('what a simulated network reads from received video bytes', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'herald-video-check-'))
  const clips: Record<string, Buffer> = {}
  beforeAll(async () => {
    const [webm, mov, mp4] = await Promise.all([
      webmClip(path.join(dir, 'a.webm')),
      movClip(path.join(dir, 'a.mov')),
      h264Clip(path.join(dir, 'a.mp4')),
    ])
    clips.webm = readFileSync(webm)
    clips.mov = readFileSync(mov)
    clips.mp4 = readFileSync(mp4)
  }, 60_000)
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('finds the avc1 track of an H.264 MP4', () => {
    const seen = inspectReceivedVideo(clips.mp4!)
    expect(seen).toMatchObject({ ok: true, container: 'mp4' })
    expect(seen.ok && isH264(seen.codec)).toBe(true)
    expect(inspectReceivedVideo(mp4File({ width: 640, height: 360, durationMs: 2000 }))).toMatchObject({
      ok: true,
      codec: 'avc1.64001f',
    })
  })

  it('sees a MOV as QuickTime and its MPEG-4 Part 2 picture as neither H.264 nor HEVC', () => {
    const seen = inspectReceivedVideo(clips.mov!)
    expect(seen).toMatchObject({ ok: true, container: 'mov' })
    expect(seen.ok && (isH264(seen.codec) || isHevc(seen.codec))).toBe(false)
  })

  it('refuses a WebM and bytes that are no video at all', () => {
    expect(inspectReceivedVideo(clips.webm!)).toEqual({ ok: false, problem: 'not an MP4 or MOV file' })
    expect(inspectReceivedVideo(Buffer.from('hello'))).toMatchObject({ ok: false })
    const header = Buffer.concat([Buffer.from([0, 0, 0, 16]), Buffer.from('ftypisom\0\0\0\0', 'latin1')])
    expect(inspectReceivedVideo(header)).toEqual({ ok: false, problem: 'the file has no readable moov box' })
  })

  it('makes the Meta simulator refuse a WebM or an MPEG-4 Part 2 video with 2207026, and take H.264', async () => {
    const state = new MetaSandboxState({
      prefix: '/sandbox/meta',
      specs: false,
      fetch: async (url) =>
        new Response(new Uint8Array(clips[String(url).split('.').at(-1)!]!), { status: 200 }),
    })
    expect(await state.fetchMedia('http://x.test/a.webm', 'video')).toMatchObject({
      ok: false,
      subcode: 2207026,
    })
    expect(await state.fetchMedia('http://x.test/a.mov', 'video')).toMatchObject({
      ok: false,
      subcode: 2207026,
      videoCodec: expect.stringMatching(/^mp4v/),
    })
    expect(await state.fetchMedia('http://x.test/a.mp4', 'video')).toMatchObject({
      ok: true,
      format: 'mp4',
      videoCodec: expect.stringMatching(/^avc1/),
    })
  })
})
