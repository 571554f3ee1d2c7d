import { describe, expect, it } from 'vitest'
import { createLinkCards, firstLink } from '../../src/interfaces/dashboard/link-cards.js'

describe('the link card of a draft', () => {
  it('takes the first http(s) address in the copy, without the punctuation after it', () => {
    expect(firstLink('Read it at https://example.org/spring.')?.toString()).toBe('https://example.org/spring')
    expect(firstLink('ftp://example.org and (https://a.example/x)')?.toString()).toBe('https://a.example/x')
    expect(firstLink('No link here')).toBeUndefined()
  })

  it('reads each page once while it is kept, and shows the site alone when the page cannot be read', async () => {
    const asked: string[] = []
    const cardFor = createLinkCards(
      {
        linkPreview: async (url) => {
          asked.push(url)
          if (url.includes('broken')) throw new Error('refused')
          return { title: 'Spring at Acme', description: 'Forty loaves an hour' }
        },
      },
      () => 0,
    )
    const card = await cardFor('New: https://www.example.org/spring')
    expect(card).toEqual({
      url: 'https://www.example.org/spring',
      host: 'example.org',
      title: 'Spring at Acme',
      description: 'Forty loaves an hour',
    })
    await cardFor('Again https://www.example.org/spring')
    expect(asked).toEqual(['https://www.example.org/spring'])
    expect(await cardFor('https://broken.example/x')).toEqual({
      url: 'https://broken.example/x',
      host: 'broken.example',
    })
    expect(await cardFor('no link')).toBeUndefined()
  })
})
