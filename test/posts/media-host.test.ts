import { describe, expect, it } from 'vitest'
import type { PlannedTarget } from '../../src/core/post-plan.js'
import { networksCanFetch } from '../../src/modules/media/public-host.js'
import { mediaHostBlockers, publicHostProblem } from '../../src/modules/publishing/media-host.js'

describe('whether the internet can fetch media from PUBLIC_BASE_URL', () => {
  it('accepts a public https host name or address', () => {
    expect(publicHostProblem('https://herald.example.org')).toBeUndefined()
    expect(publicHostProblem('https://203.0.114.7:8443')).toBeUndefined()
  })
  it('refuses plain http, localhost, private and loopback addresses, and local names', () => {
    expect(publicHostProblem('http://herald.example.org')).toBe('is not https')
    expect(publicHostProblem('https://localhost:3000')).toBe('is not a public host name')
    expect(publicHostProblem('https://herald.local')).toBe('is not a public host name')
    expect(publicHostProblem('https://10.1.2.3')).toMatch(/private/)
    expect(publicHostProblem('https://127.0.0.1')).toMatch(/loopback/)
    expect(publicHostProblem('https://[::1]')).toMatch(/loopback/)
  })
})

describe('which targets are blocked because their network could not fetch the media', () => {
  const target = (
    platform: 'instagram' | 'twitter' | 'tiktok' | 'pinterest',
    mediaUrls = ['https://cdn.example.org/a.jpg'],
  ) => ({ connection: { platform }, mediaUrls }) as unknown as PlannedTarget
  const local = { driver: 'local', dir: 'data/media' } as const
  const s3 = (endpoint: string | undefined) =>
    ({
      driver: 's3',
      bucket: 'b',
      region: 'us-east-1',
      endpoint,
      accessKeyId: undefined,
      secretAccessKey: undefined,
      presignSeconds: 3600,
    }) as const
  const base = { sandbox: false, allowPrivateMedia: false, publicBaseUrl: 'http://127.0.0.1:3000' }

  it('blocks networks that fetch by URL when PUBLIC_BASE_URL is loopback and media is stored locally', () => {
    const blockers = mediaHostBlockers({ ...base, media: local }, [target('instagram'), target('twitter')])
    expect(blockers).toHaveLength(1)
    expect(blockers[0]).toMatch(/^Instagram downloads the media from Herald's public address/)
  })
  it('blocks nothing when the media goes to presigned URLs of AWS S3 or a public endpoint', () => {
    expect(mediaHostBlockers({ ...base, media: s3(undefined) }, [target('instagram')])).toEqual([])
    expect(
      mediaHostBlockers({ ...base, media: s3('https://s3.example.org') }, [target('instagram')]),
    ).toEqual([])
  })
  it('blocks when the S3 endpoint itself is private, naming the setting to change', () => {
    const [blocker] = mediaHostBlockers({ ...base, media: s3('http://127.0.0.1:9000') }, [
      target('instagram'),
    ])
    expect(blocker).toMatch(
      /presigned URL of the S3 bucket, and HERALD_S3_ENDPOINT \(http:\/\/127\.0\.0\.1:9000\)/,
    )
  })
  it("blocks no Pinterest target: its images go inline when Pinterest cannot reach Herald's media", () => {
    expect(mediaHostBlockers({ ...base, media: local }, [target('pinterest')])).toEqual([])
    expect(networksCanFetch({ ...base, media: local })).toBe(false)
    expect(networksCanFetch({ ...base, publicBaseUrl: 'https://herald.example.org', media: local })).toBe(
      true,
    )
    expect(networksCanFetch({ ...base, media: s3(undefined) })).toBe(true)
    expect(networksCanFetch({ ...base, sandbox: true, media: local })).toBe(true)
  })
  it('blocks nothing for a target without media or in sandbox mode', () => {
    expect(mediaHostBlockers({ ...base, media: local }, [target('instagram', [])])).toEqual([])
    expect(mediaHostBlockers({ ...base, sandbox: true, media: local }, [target('instagram')])).toEqual([])
  })

  it('blocks TikTok photo posts, which TikTok fetches, but not its videos, which Herald uploads', () => {
    const [blocker] = mediaHostBlockers({ ...base, media: local }, [target('tiktok')])
    expect(blocker).toMatch(/^TikTok downloads the media from Herald's public address/)
    expect(
      mediaHostBlockers({ ...base, media: local }, [target('tiktok', ['https://cdn.example.org/v.mp4'])]),
    ).toEqual([])
  })
})
