import { describe, expect, it } from 'vitest'
import { instanceHost, remembersKeys } from '../../src/adapters/mastodon/instance.js'
import { nextMaxId, statusText } from '../../src/adapters/mastodon/lookup.js'
import { idempotencyKey } from '../../src/adapters/mastodon/publish.js'
import { resolveMastodonOptions } from '../../src/core/mastodon-options.js'
import { mastodonLength } from '../../src/core/text-length.js'
import { formatStatus } from '../../src/sandbox/mastodon/format.js'

describe('Mastodon rules', () => {
  it('counts as Mastodon does: graphemes, the content warning first, every link 23, a remote mention as its user part', () => {
    expect(mastodonLength('héllo 👋🏽')).toBe(7)
    expect(mastodonLength('abc', 'cw')).toBe(5)
    expect(mastodonLength(`see https://example.com/${'a'.repeat(100)}`)).toBe(4 + 23)
    expect(mastodonLength('see example.com')).toBe(15)
    expect(mastodonLength('hi @alice@social.example')).toBe('hi @alice'.length)
    expect(mastodonLength('x https://a.com/bcdefghijklmnop', '', 10)).toBe(12)
  })

  it('reads an instance from its name, its address or a handle, and refuses what names none', () => {
    for (const input of [
      'mastodon.social',
      'https://Mastodon.Social/',
      '@alice@mastodon.social',
      'alice@mastodon.social',
    ])
      expect(instanceHost(input)).toBe('mastodon.social')
    expect(instanceHost('localhost:3000')).toBe('localhost:3000')
    expect(instanceHost('bücher.example')).toBe('xn--bcher-kva.example')
    for (const input of [
      '',
      'mastodon',
      'https://mastodon.social/@alice',
      'ftp://x.example',
      'a b.example',
      'user:pw@x.example',
    ])
      expect(instanceHost(input)).toBeUndefined()
  })

  it('relies on idempotency keys only where the server is Mastodon itself', () => {
    expect(remembersKeys('4.5.0')).toBe(true)
    expect(remembersKeys('4.3.2+glitch')).toBe(true)
    expect(remembersKeys('2.7.2 (compatible; Pleroma 2.6.0)')).toBe(false)
    expect(remembersKeys('')).toBe(false)
  })

  it('derives one key per target and per item, the same on every attempt', () => {
    expect(idempotencyKey('t1')).toBe(idempotencyKey('t1'))
    expect(idempotencyKey('t1')).not.toBe(idempotencyKey('t2'))
    expect(idempotencyKey('t1', 0)).not.toBe(idempotencyKey('t1'))
    expect(idempotencyKey('t1', 0)).not.toBe(idempotencyKey('t1', 1))
    expect(idempotencyKey('t1')).toMatch(/^herald-[\w-]{32}$/)
  })

  it("reads a status's HTML back as the text typed, whatever Mastodon's formatter made of its links, mentions and tags", () => {
    const text =
      'Line one with https://example.com/a/very/long/path/that/is/cut and #tags\nline two @bob@other.example\n\nSecond paragraph & <more>'
    expect(statusText(formatStatus(text, 'https://social.example'))).toBe(
      text.replace('@bob@other.example', '@bob'),
    )
  })

  it('takes only the max_id of the next page from the Link header, never its address', () => {
    expect(
      nextMaxId(
        '<https://a.example/api/v1/accounts/1/statuses?max_id=99>; rel="next", <https://a.example/x?min_id=5>; rel="prev"',
      ),
    ).toBe('99')
    expect(nextMaxId('<https://a.example/x?min_id=5>; rel="prev"')).toBeUndefined()
    expect(nextMaxId('<https://evil.example/?max_id=../../x>; rel="next"')).toBeUndefined()
    expect(nextMaxId(null)).toBeUndefined()
  })

  it("resolves a profile's options over the shared ones, dropping an empty content warning", () => {
    expect(
      resolveMastodonOptions({ visibility: 'unlisted', contentWarning: 'a' }, { contentWarning: ' ' }),
    ).toEqual({
      visibility: 'unlisted',
    })
    expect(resolveMastodonOptions(undefined, undefined)).toBeUndefined()
  })
})
