import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Network } from '../../src/core/networks.js'
import { sandboxConnect } from '../../src/modules/connections/sandbox-connect.js'
import { useChainRig } from '../helpers/chain-rig.js'
import { CHROMIUM } from '../helpers/chromium.js'
import { type Harness, startHarness } from '../helpers/harness.js'
import { screenshotDir } from '../helpers/reference.js'

/**
 * In sandbox mode a published post's URL, as get_post gives it, opens the simulator's page of that post:
 * the copy (escaped: it is user input), the media the network holds, and the thread or first comment
 * under it, for every network.
 */

const HOSTILE = '<script>alert("x")</script> & <b>bold</b>'
const ESCAPED = '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#60;b&#62;bold&#60;/b&#62;'

interface Case {
  network: Network
  username: string
  organization?: boolean
  /** What create_post gets besides the profile and the copy. */
  input: (rig: ReturnType<typeof useChainRig>) => Record<string, unknown>
  /** The texts under the post: its thread items' or its first comment's, in order. */
  under: string[]
  /** What kind of file the page shows. */
  media: 'image/jpeg' | 'video/mp4'
  /** The web base the URL names. */
  base: string
  /** How the page shows the copy, escaped, when it is not {@link ESCAPED} (YouTube refuses `<` and `>`). */
  shown?: string
}

const thread = (tag: string) => ({
  thread: [{ content: `${tag} second in the thread` }, { content: `${tag} third in the thread` }],
})
const comment = (tag: string) => ({ firstComment: `${tag} first comment below` })

const CASES: Case[] = [
  {
    network: 'twitter',
    username: 'pages_x',
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...thread('X') }),
    under: ['X second in the thread', 'X third in the thread'],
    media: 'image/jpeg',
    base: '/sandbox/twitter/web/pages_x/status/',
  },
  {
    network: 'bluesky',
    username: 'pages.sky',
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...thread('Sky') }),
    under: ['Sky second in the thread', 'Sky third in the thread'],
    media: 'image/jpeg',
    base: '/sandbox/bluesky/web/profile/pages.sky/post/',
  },
  {
    network: 'threads',
    username: 'pages.threads',
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...thread('Threads') }),
    under: ['Threads second in the thread', 'Threads third in the thread'],
    media: 'image/jpeg',
    base: '/sandbox/threads/web/@pages.threads/post/',
  },
  {
    network: 'facebook',
    username: 'Pages Cafe',
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...comment('Facebook') }),
    under: ['Facebook first comment below'],
    media: 'image/jpeg',
    base: '/sandbox/meta/web/facebook/',
  },
  {
    network: 'instagram',
    username: 'pages.cafe',
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...comment('Instagram') }),
    under: ['Instagram first comment below'],
    media: 'image/jpeg',
    base: '/sandbox/meta/web/instagram/p/',
  },
  {
    network: 'linkedin',
    username: 'Pages Member',
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...comment('LinkedIn') }),
    under: ['LinkedIn first comment below'],
    media: 'image/jpeg',
    base: '/sandbox/linkedin/web/feed/update/urn:li:',
  },
  {
    network: 'linkedin',
    username: 'Pages Member',
    organization: true,
    input: (rig) => ({ mediaUrls: [rig.imageUrl], ...comment('LinkedIn page') }),
    under: ['LinkedIn page first comment below'],
    media: 'image/jpeg',
    base: '/sandbox/linkedin/web/feed/update/urn:li:',
  },
  {
    network: 'youtube',
    username: 'pages.creator@example.com',
    input: (rig) => ({ mediaUrl: rig.videoUrl, ...comment('YouTube') }),
    under: ['YouTube first comment below'],
    media: 'video/mp4',
    base: '/sandbox/youtube/web/shorts/',
    // Herald takes the angle brackets out of a YouTube title and description, as YouTube refuses them.
    shown: 'scriptalert(&#34;x&#34;)/script &#38; bbold/b',
  },
]

describe('a sandbox post opens on the simulated network', () => {
  const rig = useChainRig()
  const profiles = new Map<Case, string>()

  beforeAll(async () => {
    for (const c of CASES) {
      const { profileId } = await sandboxConnect(rig.h.app, {
        workspaceId: rig.h.workspaceId,
        network: c.network,
        username: c.username,
        ...(c.organization ? { organization: true } : {}),
      })
      profiles.set(c, profileId)
    }
  })

  /** create_post published at once to the case's profile; its target as get_post gives it. */
  const publish = async (c: Case, content: string, extra: Record<string, unknown>) => {
    const { status, body } = await rig.h.call('create_post', {
      content,
      targetAccounts: [{ platform: c.network, profileId: profiles.get(c) }],
      publishImmediately: true,
      ...extra,
    })
    expect(status, JSON.stringify(body)).toBe(200)
    await rig.drain()
    const post = await rig.post(body.postIds[0])
    expect(post.status, JSON.stringify(post.targets)).toBe('published')
    return post.targets[0] as { url: string; items: Array<{ url: string }> }
  }

  it.each(CASES.map((c) => [`${c.network}${c.organization ? ' page' : ''}`, c] as const))(
    "%s: the published post's url answers its page, with the copy escaped, the media and what is under it",
    async (_label, c) => {
      const target = await publish(c, `Pages on ${c.network}: ${HOSTILE}`, c.input(rig))
      expect(target.url.startsWith(`${rig.h.baseUrl}${c.base}`), target.url).toBe(true)

      const page = await fetch(target.url)
      const html = await page.text()
      expect(page.status, html.slice(0, 300)).toBe(200)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
      expect(html).toContain(`Pages on ${c.network}: ${c.shown ?? ESCAPED}`)
      expect(html).not.toContain('<script')
      expect(html).not.toContain('<b>bold')
      for (const text of c.under) expect(html).toContain(text)

      // The page's media is the file the network holds, served by the simulator beside the page.
      const src = /<(?:img|video) src="([^"]*_media\/[^"]+)"/.exec(html)?.[1]
      expect(src, html).toBeDefined()
      const file = await fetch(new URL(src!.replaceAll('&#38;', '&'), target.url))
      expect(file.status).toBe(200)
      expect(file.headers.get('content-type')).toBe(c.media)
      const css = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1]
      const sheet = await fetch(new URL(css!, target.url))
      expect(sheet.status).toBe(200)
      expect(sheet.headers.get('content-type')).toBe('text/css; charset=utf-8')
      // A thread item's or a comment's own link opens a page that shows it too.
      expect(target.items).toHaveLength(c.under.length)
      for (const [i, item] of target.items.entries()) {
        const shown = await fetch(item.url)
        expect(shown.status, item.url).toBe(200)
        expect(await shown.text()).toContain(c.under[i])
      }
    },
    60_000,
  )

  it.runIf(existsSync('/usr/bin/chromium'))(
    'an X thread and an Instagram post look like the networks in Chromium, with nothing the CSP blocks',
    async () => {
      const x = await publish(CASES[0]!, 'Fresh sourdough out of the oven at 7. First come, first served.', {
        mediaUrls: [rig.imageUrl],
        thread: [
          { content: 'The rye is back on Saturdays, with caraway this time.' },
          { content: 'And yes, we still keep a loaf aside if you ask before noon.' },
        ],
      })
      const instagram = await publish(
        CASES.find((c) => c.network === 'instagram')!,
        'Morning bake, still warm. #sourdough #bakery',
        { mediaUrls: [rig.imageUrl], firstComment: 'Open from 7 to 2, Tuesday to Sunday.' },
      )
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
        tab.on('pageerror', (error) => problems.push(error.message))
        const shots = screenshotDir()
        for (const [name, url, accent] of [
          ['sandbox-x-post-desktop.png', x.url, 'rgb(29, 155, 240)'],
          ['sandbox-instagram-post-desktop.png', instagram.url, 'rgb(214, 41, 118)'],
        ] as const) {
          await tab.goto(url)
          // The stylesheet applied (the network's avatar colour) and the image drew from the simulator.
          const avatar = await tab.evaluate(
            "(() => { const s = getComputedStyle(document.querySelector('.post .avatar')); return s.backgroundColor + s.boxShadow })()",
          )
          expect(avatar).toContain(accent)
          expect(await tab.evaluate("document.querySelector('.post .media img').naturalWidth")).toBe(1080)
          await tab.screenshot({ path: path.join(shots, name), fullPage: true })
        }
        expect(problems).toEqual([])
      } finally {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      }
    },
    90_000,
  )

  it.each([
    ['twitter', '/sandbox/twitter/web/pages_x/status/1234567890'],
    ['bluesky', '/sandbox/bluesky/web/profile/pages.sky/post/3kaaaaaaaaaaa'],
    ['threads', '/sandbox/threads/web/@pages.threads/post/nothere'],
    ['facebook', '/sandbox/meta/web/facebook/1/posts/2'],
    ['instagram', '/sandbox/meta/web/instagram/p/nothere/'],
    ['linkedin', '/sandbox/linkedin/web/feed/update/urn:li:share:1'],
    ['youtube', '/sandbox/youtube/web/watch?v=nothere'],
  ])('%s: an address that names no post answers the 404 page', async (_network, path) => {
    const page = await fetch(`${rig.h.baseUrl}${path}`)
    expect(page.status).toBe(404)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(await page.text()).toContain("This post doesn't exist")
  })
})

describe('without sandbox mode there are no simulated pages', () => {
  let h: Harness
  beforeAll(async () => {
    h = await startHarness({ prePickPort: true })
  })
  afterAll(async () => {
    await h?.close()
  })

  it.each([
    '/sandbox/twitter/web/pages_x/status/1',
    '/sandbox/twitter/web/_assets/page.css',
    '/sandbox/bluesky/web/profile/pages.sky/post/3kaaaaaaaaaaa',
    '/sandbox/meta/web/facebook/1/posts/2',
    '/sandbox/meta/web/instagram/p/abc/',
    '/sandbox/threads/web/@pages.threads',
    '/sandbox/linkedin/web/feed/update/urn:li:share:1',
    '/sandbox/youtube/web/shorts/abc',
  ])('%s is not found, as any other unknown route', async (path) => {
    const answer = await fetch(`${h.baseUrl}${path}`)
    expect(answer.status).toBe(404)
    expect(answer.headers.get('content-type')).toContain('application/json')
    expect(await answer.json()).toMatchObject({ error: { code: 'not_found' } })
  })
})
