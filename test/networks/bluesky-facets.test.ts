import { describe, expect, it } from 'vitest'
import {
  buildFacets,
  type Detected,
  detectRichText,
  graphemeLength,
  isValidHandle,
  mentionedHandles,
  textLimitProblem,
  utf8Length,
} from '../../src/adapters/bluesky/facets.js'

/** The text a facet covers, cut from the UTF-8 bytes exactly as a Bluesky client does. */
function covered(text: string, d: { byteStart: number; byteEnd: number }): string {
  return Buffer.from(text, 'utf8').subarray(d.byteStart, d.byteEnd).toString('utf8')
}

const summary = (text: string) =>
  detectRichText(text).map((d) => {
    const value = d.kind === 'link' ? d.uri : d.kind === 'mention' ? d.handle : d.tag
    return [d.kind, value, covered(text, d)]
  })

describe('Bluesky rich text detection', () => {
  it('places a tag and a link at the byte offsets of the reference example', () => {
    expect(detectRichText('Hello #atproto https://example.com')).toEqual([
      { kind: 'tag', byteStart: 6, byteEnd: 14, tag: 'atproto' },
      { kind: 'link', byteStart: 15, byteEnd: 34, uri: 'https://example.com' },
    ])
  })

  it('counts emoji before a link as four bytes each', () => {
    const text = '🚀🚀 launch https://herald.example/x'
    const [link] = detectRichText(text)
    expect(link).toMatchObject({ kind: 'link', byteStart: 16, uri: 'https://herald.example/x' })
    expect(covered(text, link!)).toBe('https://herald.example/x')
  })

  it('counts CJK characters as three bytes and keeps a path in Japanese inside the link', () => {
    const text = 'こんにちは https://example.com/ページ です #タグ'
    expect(detectRichText(text)).toEqual([
      { kind: 'link', byteStart: 16, byteEnd: 16 + 20 + 9, uri: 'https://example.com/ページ' },
      { kind: 'tag', byteStart: 16 + 29 + 8, byteEnd: 16 + 29 + 8 + 7, tag: 'タグ' },
    ])
    expect(summary(text)).toEqual([
      ['link', 'https://example.com/ページ', 'https://example.com/ページ'],
      ['tag', 'タグ', '#タグ'],
    ])
  })

  it('finds a link written straight after Japanese text and stops at a full stop 。', () => {
    expect(summary('詳細はhttps://example.com/a。次へ')).toEqual([
      ['link', 'https://example.com/a', 'https://example.com/a'],
    ])
  })

  it('finds several links in one post', () => {
    const text = 'a https://one.example/x and https://two.example/y, and http://three.example.'
    expect(summary(text)).toEqual([
      ['link', 'https://one.example/x', 'https://one.example/x'],
      ['link', 'https://two.example/y', 'https://two.example/y'],
      ['link', 'http://three.example', 'http://three.example'],
    ])
  })

  describe.each([
    ['a full stop', 'see https://example.com.', 'https://example.com'],
    ['a comma', 'https://example.com/path, then', 'https://example.com/path'],
    ['an exclamation mark', 'wow https://example.com/?q=1!', 'https://example.com/?q=1'],
    ['a question mark', 'is it https://example.com/a?', 'https://example.com/a'],
    ['several marks', 'really https://example.com/a?!.', 'https://example.com/a'],
    ['a closing bracket', '(see https://example.com/a)', 'https://example.com/a'],
    ['a bracket and a stop', '(see https://example.com/a).', 'https://example.com/a'],
    ['a square bracket', '[https://example.com/a]', 'https://example.com/a'],
    ['a curly quote', '“https://example.com/a”', 'https://example.com/a'],
    ['an ellipsis', 'more at https://example.com/a…', 'https://example.com/a'],
  ])('a link followed by %s', (_name, text, uri) => {
    it('leaves the punctuation out of the link', () => {
      const links = detectRichText(text).filter((d) => d.kind === 'link')
      expect(links).toHaveLength(1)
      expect(links[0]).toMatchObject({ uri })
      expect(covered(text, links[0]!)).toBe(uri)
    })
  })

  it('keeps balanced brackets that belong to the URL', () => {
    expect(summary('read https://en.wikipedia.org/wiki/Pipe_(Unix) today')).toEqual([
      ['link', 'https://en.wikipedia.org/wiki/Pipe_(Unix)', 'https://en.wikipedia.org/wiki/Pipe_(Unix)'],
    ])
  })

  it('keeps a query string and a fragment inside the link', () => {
    expect(summary('go https://example.com/a?b=c&d=e#frag now')).toEqual([
      ['link', 'https://example.com/a?b=c&d=e#frag', 'https://example.com/a?b=c&d=e#frag'],
    ])
  })

  it('does not link a scheme glued to a word, a bare scheme or a host without a dot', () => {
    expect(detectRichText('xhttps://example.com https:// http://intranet/page')).toEqual([])
  })

  it('never finds a tag inside a URL, only the real one after it', () => {
    const text = 'https://example.com/#section https://example.com/page?x=#y #real'
    expect(summary(text)).toEqual([
      ['link', 'https://example.com/#section', 'https://example.com/#section'],
      ['link', 'https://example.com/page?x=#y', 'https://example.com/page?x=#y'],
      ['tag', 'real', '#real'],
    ])
  })

  it('never finds a mention inside a URL', () => {
    expect(summary('https://bsky.app/profile/@alice.test')).toEqual([
      ['link', 'https://bsky.app/profile/@alice.test', 'https://bsky.app/profile/@alice.test'],
    ])
  })

  describe.each([
    ['#atproto rocks', [['tag', 'atproto', '#atproto']]],
    ['end of sentence #tag!', [['tag', 'tag', '#tag']]],
    ['#123abc', [['tag', '123abc', '#123abc']]],
    ['#1 in numbers', []],
    ['ticket #42.', []],
    ['keycap #️⃣ emoji', []],
    ['glued a#b', []],
    ['full width ＃タグ', [['tag', 'タグ', '＃タグ']]],
    ['emoji #🦋bluesky', [['tag', '🦋bluesky', '#🦋bluesky']]],
    ['(#inparens)', [['tag', 'inparens', '#inparens']]],
    [`#${'a'.repeat(64)}`, [['tag', 'a'.repeat(64), `#${'a'.repeat(64)}`]]],
    [`#${'a'.repeat(65)}`, []],
    [
      'two #one and #two',
      [
        ['tag', 'one', '#one'],
        ['tag', 'two', '#two'],
      ],
    ],
  ])('tags in %j', (text, expected) => {
    it('are found with the # covered and left out of the tag', () => {
      expect(summary(text)).toEqual(expected)
    })
  })

  describe.each([
    ['@alice.test hi', [['mention', 'alice.test', '@alice.test']]],
    ['thanks @alice.bsky.social.', [['mention', 'alice.bsky.social', '@alice.bsky.social']]],
    ['cc @Alice.Test', [['mention', 'alice.test', '@Alice.Test']]],
    ['(@bob.example)', [['mention', 'bob.example', '@bob.example']]],
    ['こんにちは @bob.example さん', [['mention', 'bob.example', '@bob.example']]],
    ['mail me@example.com', []],
    ['@notahandle', []],
    ['@3.14', []],
    ['@-bad.example', []],
  ])('mentions in %j', (text, expected) => {
    it('are found with the @ covered and the handle lower-cased', () => {
      expect(summary(text)).toEqual(expected)
    })
  })

  it('places a mention, a link and a tag after emoji at exact byte offsets', () => {
    const text = '👋 @bob.test read https://example.com/a 🎉 #launch'
    const detected = detectRichText(text)
    expect(detected).toEqual([
      { kind: 'mention', byteStart: 5, byteEnd: 14, handle: 'bob.test' },
      { kind: 'link', byteStart: 20, byteEnd: 41, uri: 'https://example.com/a' },
      { kind: 'tag', byteStart: 47, byteEnd: 54, tag: 'launch' },
    ])
    expect(detected.map((d) => covered(text, d))).toEqual(['@bob.test', 'https://example.com/a', '#launch'])
  })
})

describe('Bluesky facets', () => {
  const detected: Detected[] = detectRichText('@bob.test and @ghost.test see https://example.com #tag')

  it('lists each mentioned handle once', () => {
    expect(mentionedHandles([...detected, ...detected])).toEqual(['bob.test', 'ghost.test'])
  })

  it('turns spans into lexicon features and leaves unresolved mentions as plain text', () => {
    const facets = buildFacets(detected, new Map([['bob.test', 'did:plc:bob']]))
    expect(facets).toEqual([
      {
        index: { byteStart: 0, byteEnd: 9 },
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: 'did:plc:bob' }],
      },
      {
        index: { byteStart: 30, byteEnd: 49 },
        features: [{ $type: 'app.bsky.richtext.facet#link', uri: 'https://example.com' }],
      },
      {
        index: { byteStart: 50, byteEnd: 54 },
        features: [{ $type: 'app.bsky.richtext.facet#tag', tag: 'tag' }],
      },
    ])
  })
})

describe('Bluesky text limits', () => {
  it('counts graphemes, not code units or bytes', () => {
    expect(graphemeLength('👨‍👩‍👧‍👦')).toBe(1)
    expect(graphemeLength('e\u0301')).toBe(1)
    expect(graphemeLength('日本語')).toBe(3)
    expect(utf8Length('日本語')).toBe(9)
  })

  it('accepts 300 graphemes and refuses 301', () => {
    expect(textLimitProblem('a'.repeat(300))).toBeUndefined()
    expect(textLimitProblem('🦋'.repeat(300))).toBeUndefined()
    expect(textLimitProblem('a'.repeat(301))).toMatch(/at most 300 characters; this copy has 301/)
  })

  it('refuses copy over 3000 bytes even within 300 graphemes', () => {
    expect(textLimitProblem('👨‍👩‍👧‍👦'.repeat(200))).toMatch(/at most 3000 bytes/)
  })

  it('knows a handle from other words', () => {
    expect(isValidHandle('alice.bsky.social')).toBe(true)
    expect(isValidHandle('alice.test')).toBe(true)
    expect(isValidHandle('alice')).toBe(false)
    expect(isValidHandle('alice.123')).toBe(false)
    expect(isValidHandle('-alice.test')).toBe(false)
  })
})
