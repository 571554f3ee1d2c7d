import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { type Harness, startHarness } from '../helpers/harness.js'

/**
 * preflight_post for Mastodon: each profile is held to its own instance's limits as Herald read them
 * (characters with the content warning counted and every link at 23, attachments per status), which
 * `limits.mastodon` reports; the `mastodon` object is checked and ignored for other networks.
 */
describe('preflight_post for Mastodon profiles', () => {
  let h: Harness
  let small = ''
  let large = ''
  beforeAll(async () => {
    h = await startHarness({ sandbox: true })
    await fetch(`${h.baseUrl}/sandbox/mastodon/_sandbox/instances`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ host: 'roomy.example', maxCharacters: 1000, maxMedia: 6 }),
    })
    const connect = (username: string) =>
      sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'mastodon', username })
    small = (await connect('fay@tiny.example')).profileId
    large = (await connect('gus@roomy.example')).profileId
    await sandboxConnect(h.app, { workspaceId: h.workspaceId, network: 'bluesky', username: 'fay' })
  }, 60_000)
  afterAll(async () => {
    await h?.close()
  })
  const preflight = async (body: Record<string, unknown>) => (await h.call('preflight_post', body)).body
  const to = (profileId: string) => [{ platform: 'mastodon', profileId }]

  it("reports the smallest targeted instance's limit, and Mastodon's 500 where none is targeted", async () => {
    expect((await preflight({ content: 'hi', targetAccounts: to(large) })).limits.mastodon).toBe(1000)
    expect((await preflight({ content: 'hi', platforms: ['mastodon'] })).limits.mastodon).toBe(500)
    expect((await preflight({ content: 'hi', platforms: ['bluesky'] })).limits.mastodon).toBe(500)
  })

  it("holds each profile to its instance's limit, the content warning counted with the text", async () => {
    const copy = 'x'.repeat(495)
    expect((await preflight({ content: copy, targetAccounts: to(small) })).blockers).toEqual([])
    const warned = await preflight({
      content: copy,
      targetAccounts: to(small),
      mastodon: { contentWarning: 'long read' },
    })
    expect(warned.blockers).toEqual([
      'mastodon @fay@tiny.example: the copy is 504 characters with its content warning; the instance allows 500',
    ])
    expect((await preflight({ content: 'x'.repeat(900), targetAccounts: to(large) })).blockers).toEqual([])
  })

  it('counts every link as 23 characters and a remote mention as its user part', async () => {
    const content = `${'x'.repeat(450)} https://example.com/${'a'.repeat(300)} @fay@tiny.example`
    expect((await preflight({ content, targetAccounts: to(small) })).blockers).toEqual([])
  })

  it("holds each thread item to the instance's limit, with the content warning, and takes the thread", async () => {
    const answer = await preflight({
      content: 'One',
      targetAccounts: to(small),
      thread: [{ content: 'x'.repeat(498) }],
      mastodon: { contentWarning: 'cw' },
    })
    expect(answer.blockers).toEqual([])
    const over = await preflight({
      content: 'One',
      targetAccounts: to(small),
      thread: [{ content: 'x'.repeat(499) }],
      mastodon: { contentWarning: 'cw' },
    })
    expect(over.blockers).toEqual([
      'thread[0]: mastodon @fay@tiny.example: the thread post 2 of 2 is 501 characters; mastodon allows 500',
    ])
  })

  it("counts attachments against the instance's own number and refuses images mixed with a video", async () => {
    const images = Array.from({ length: 5 }, (_, i) => `https://cdn.example/${i}.jpg`)
    expect(
      (await preflight({ content: 'pics', targetAccounts: to(small), mediaUrls: images })).blockers,
    ).toContain('mastodon @fay@tiny.example: 5 attachments; mastodon takes at most 4')
    const roomy = await preflight({ content: 'pics', targetAccounts: to(large), mediaUrls: images })
    expect(roomy.blockers.filter((b: string) => b.includes('attachments'))).toEqual([])
    const mixed = await preflight({
      content: 'mixed',
      targetAccounts: to(small),
      mediaUrls: ['https://cdn.example/a.jpg', 'https://cdn.example/b.mp4'],
    })
    expect(mixed.blockers).toContain(
      'mastodon @fay@tiny.example: mastodon does not mix video into a set of several',
    )
  })

  it('refuses a mastodon object that is not one (400), and leaves other networks as they are', async () => {
    const bad = await h.call('preflight_post', {
      content: 'hi',
      platforms: ['mastodon'],
      mastodon: { language: 'English' },
    })
    expect(bad.status).toBe(400)
    const bluesky = await preflight({
      content: 'x'.repeat(290),
      platforms: ['bluesky'],
      mastodon: { contentWarning: 'cw' },
    })
    expect(bluesky.blockers).toEqual([])
  })
})
