import { describe, expect, it } from 'vitest'
import { initials, renderPostPage, type WebPage } from '../../src/sandbox/web/post-page.js'
import { assetsFrom } from '../../src/sandbox/web/web-scope.js'

const page = (overrides: Partial<WebPage['post']> = {}): WebPage => ({
  network: 'bluesky',
  title: 'A "post" <title>',
  post: {
    author: { name: '<i>Eve</i>', handle: '@eve.test' },
    at: Date.UTC(2026, 2, 2, 9, 30),
    text: 'hi',
    ...overrides,
  },
})

describe("the simulators' post pages", () => {
  it('escapes every value a user chose: the name, the title, the alt text and the link title', () => {
    const html = renderPostPage(
      page({
        media: [{ kind: 'image', key: 'k"1', alt: '"><img src=x onerror=alert(1)>' }],
        link: { url: 'https://example.com/?a=1&b=<2>', title: '<script>x</script>' },
      }),
      '../',
    )
    expect(html).toContain('<title>A &#34;post&#34; &#60;title&#62;</title>')
    expect(html).toContain('&#60;i&#62;Eve&#60;/i&#62;')
    expect(html).toContain('alt="&#34;&#62;&#60;img src=x onerror=alert(1)&#62;"')
    expect(html).toContain('src="../_media/k%221"')
    expect(html).toContain('&#60;script&#62;x&#60;/script&#62;')
    expect(html).not.toMatch(/<script|<i>|onerror=alert\(1\)>/)
  })

  it('shows a link card only for an http(s) address', () => {
    expect(renderPostPage(page({ link: { url: 'javascript:alert(1)' } }), '')).not.toContain('javascript:')
    expect(renderPostPage(page({ link: { url: 'https://example.com/menu' } }), '')).toContain(
      'href="https://example.com/menu"',
    )
  })

  it('shows a poster for a video the simulator did not keep, and the time in UTC', () => {
    const html = renderPostPage(page({ media: [{ kind: 'video' }] }), '')
    expect(html).toContain('class="poster"')
    expect(html).not.toContain('<video')
    expect(html).toContain('<time datetime="2026-03-02T09:30:00.000Z">2026-03-02 09:30 UTC</time>')
  })

  it('draws an avatar from the first letters of the first two words', () => {
    expect(initials('Corner Shop')).toBe('CS')
    expect(initials('demo_user')).toBe('DU')
    expect(initials('@pages.cafe')).toBe('PC')
    expect(initials('')).toBe('?')
  })

  it.each([
    ['/sandbox/twitter/web', '/sandbox/twitter/web/demo_user/status/1', '../../'],
    ['/sandbox/meta/web/instagram', '/sandbox/meta/web/instagram/p/Ab12/', '../../'],
    ['/sandbox/youtube/web', '/sandbox/youtube/web/watch?v=abc&lc=def', ''],
    ['/sandbox/linkedin/web', '/sandbox/linkedin/web/feed/update/urn:li:share:1', '../../'],
    ['/sandbox/twitter/web', '/sandbox/twitter/web', 'web/'],
  ])('finds the way from a page back to its web base %s: %s is %j away', (base, url, way) => {
    expect(assetsFrom(url, base)).toBe(way)
  })
})
