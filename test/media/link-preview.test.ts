import { describe, expect, it } from 'vitest'
import { parseLinkPreview } from '../../src/modules/media/link-preview.js'

describe('link previews for article cards', () => {
  it('reads Open Graph tags, decoding entities and resolving a relative image against the page', () => {
    const html = `<html><head><title>Plain</title>
      <meta content="Caf&eacute; &amp; more" property="og:title">
      <meta property='og:description' content='Two  lines
        of text'>
      <meta property="og:image" content="/img/card.png"></head></html>`
    expect(parseLinkPreview(html, 'https://example.com/posts/1')).toEqual({
      title: 'Caf&eacute; & more',
      description: 'Two lines of text',
      imageUrl: 'https://example.com/img/card.png',
    })
  })

  it('falls back to <title> and the description meta, and drops an image that is not http(s)', () => {
    const html =
      '<title>A &#x263A; page</title><meta name="description" content="About it"><meta property="og:image" content="javascript:alert(1)">'
    expect(parseLinkPreview(html, 'https://example.com/')).toEqual({
      title: 'A ☺ page',
      description: 'About it',
    })
  })

  it('gives nothing for a page without any of them', () => {
    expect(parseLinkPreview('<p>hello</p>', 'https://example.com/')).toEqual({})
  })
})
