import { afterAll, beforeAll, expect } from 'vitest'
import { mp4File, solidImage } from '../media/fixtures.js'
import { serveJpegOrVideo, type TestServer } from '../media/servers.js'
import { type Harness, startHarness } from './harness.js'

export interface PreflightAnswer {
  ok: boolean
  blockers: string[]
  warnings: string[]
  mediaCount?: number
  mediaSetLimits?: Record<string, unknown>
}

/**
 * What a network's preflight suite stands on, set up before the suite and stopped after it: a sandbox-mode
 * harness with the profiles `connect` makes, and a server answering any `.mp4` path with a 9-second
 * vertical video and any other path with a 1080x1080 JPEG.
 */
export interface PreflightRig<Connected> {
  readonly h: Harness
  /** What `connect` returned. */
  readonly connected: Connected
  url(name: string): string
  /** preflight_post (published at once, with `defaults` under `input`), expected to answer 200. */
  preflight(input: Record<string, unknown>): Promise<PreflightAnswer>
}

export function usePreflightRig<Connected>(
  connect: (h: Harness) => Promise<Connected>,
  defaults: Record<string, unknown> = {},
): PreflightRig<Connected> {
  let h: Harness
  let files: TestServer
  let connected: Connected
  const video = mp4File({ width: 1080, height: 1920, durationMs: 9000, mdatBytes: 8 * 1024 })
  beforeAll(async () => {
    const jpeg = await solidImage(1080, 1080, 'jpeg')
    files = await serveJpegOrVideo(jpeg, video)
    h = await startHarness({ sandbox: true, credits: 500, env: { HERALD_ALLOW_PRIVATE_MEDIA: '1' } })
    connected = await connect(h)
  }, 60_000)
  afterAll(async () => {
    await h?.close()
    await files?.close()
  })
  return {
    get h() {
      return h
    },
    get connected() {
      return connected
    },
    url: (name) => `${files.url}/${name}`,
    async preflight(input) {
      const { status, body } = await h.call('preflight_post', {
        publishImmediately: true,
        ...defaults,
        ...input,
      })
      expect(status, JSON.stringify(body)).toBe(200)
      return body as PreflightAnswer
    },
  }
}
