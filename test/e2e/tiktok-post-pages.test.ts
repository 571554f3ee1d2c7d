import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { useChainRig } from '../helpers/chain-rig.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { accessibilityProblems } from '../helpers/look-at.js'
import { screenshotDir } from '../helpers/reference.js'

/**
 * A sandbox TikTok post's URL opens the simulator's page of it, as TikTok shows one: the video (or the
 * photos, swiped) in a vertical frame, the caption under it escaped (it is user input), who can see it; a
 * private post's URL is the creator's page, which shows it marked so; an address that names nothing is the
 * 404 page.
 */
const HOSTILE = '<script>alert("x")</script> & <b>bold</b>'
const ESCAPED = '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;b&#62;bold&#60;/b&#62;'

describe('a sandbox TikTok post opens on the simulated TikTok', () => {
  const rig = useChainRig()
  let profileId: string
  beforeAll(async () => {
    ;({ profileId } = await sandboxConnect(rig.h.app, {
      workspaceId: rig.h.workspaceId,
      network: 'tiktok',
      username: 'pages.bakery',
    }))
  })

  const publish = async (content: string, extra: Record<string, unknown>) => {
    const { status, body } = await rig.h.call('create_post', {
      content,
      targetAccounts: [{ platform: 'tiktok', profileId }],
      publishImmediately: true,
      ...extra,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    const post = await rig.post(body.postIds[0])
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    return post.targets[0] as { url: string; postId: string }
  }

  it('shows a public video in its frame with the caption escaped, served from what TikTok holds', async () => {
    const target = await publish(`Dawn bake ${HOSTILE}`, {
      mediaUrl: rig.videoUrl,
      tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
    })
    expect(target.url).toBe(`${rig.h.baseUrl}/sandbox/tiktok/web/@pages.bakery/video/${target.postId}`)
    const page = await fetch(target.url)
    const html = await page.text()
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(html).toContain(`Dawn bake ${ESCAPED}`)
    expect(html).not.toContain('<script')
    expect(html).toContain('Everyone can see this post')
    const src = /<video src="([^"]*_media\/[^"]+)"/.exec(html)?.[1]
    const file = await fetch(new URL(src!, target.url))
    expect(file.headers.get('content-type')).toBe('video/mp4')
  })

  it('shows a photo post’s photos, and a private post on the creator’s page marked as only theirs', async () => {
    const photos = await publish('Two loaves\nRye and spelt', {
      mediaUrls: [rig.imageUrl, `${rig.imageUrl}?second`],
      tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
    })
    expect(photos.url).toContain('/sandbox/tiktok/web/@pages.bakery/photo/')
    const html = await (await fetch(photos.url)).text()
    expect(html.match(/<img src="[^"]*_media\//g)).toHaveLength(2)
    expect(html).toContain('<h1 class="title">Two loaves</h1>')

    const hidden = await publish('Only for me', {
      mediaUrl: rig.videoUrl,
      tiktok: { privacyLevel: 'SELF_ONLY' },
    })
    expect(hidden.url).toBe(`${rig.h.baseUrl}/sandbox/tiktok/web/@pages.bakery`)
    const profile = await (await fetch(hidden.url)).text()
    expect(profile).toContain('Only for me')
    expect(profile).toContain('Only you can see this post')
    expect(
      (await fetch(`${rig.h.baseUrl}/sandbox/tiktok/web/@pages.bakery/video/7000000000000000001`)).status,
    ).toBe(404)
  })

  it.runIf(existsSync('/usr/bin/chromium'))(
    'looks like TikTok in Chromium: a vertical frame, nothing the CSP blocks, nothing axe-core finds serious',
    async () => {
      const video = await publish('Fresh sourdough out of the oven at 7. First come, first served. #bakery', {
        mediaUrl: rig.videoUrl,
        tiktok: { privacyLevel: 'PUBLIC_TO_EVERYONE' },
      })
      const profile = mkdtempSync(path.join(tmpdir(), 'herald-chromium-'))
      const context = await chromium.launchPersistentContext(profile, {
        ...CHROMIUM,
        viewport: { width: 1280, height: 900 },
        timezoneId: 'UTC',
      })
      try {
        const tab = await context.newPage()
        const problems: string[] = []
        tab.on('console', (message) => {
          if (message.type() === 'error') problems.push(message.text())
        })
        await tab.goto(video.url)
        const frame = await tab.locator('.post .media video').boundingBox()
        // Taller than wide, 9:16.
        expect(frame!.height / frame!.width).toBeCloseTo(16 / 9, 1)
        await tab.screenshot({
          path: path.join(screenshotDir(), 'sandbox-tiktok-post-desktop.png'),
          fullPage: true,
        })
        expect(problems).toEqual([])
        expect(await accessibilityProblems(tab)).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    90_000,
  )
})
