import { describe, expect, it } from 'vitest'
import {
  type GraphCall,
  loadMetaSpecs,
  topLevelFields,
  validateGraphCall,
} from '../../src/sandbox/meta/spec-validator.js'

const specs = loadMetaSpecs()

describe("the validator for Meta's spec format", () => {
  it('finds the stored v25.0 node specs from the project root', () => {
    expect(specs?.nodes.get('Page')).toBeDefined()
    expect(specs?.enums.size).toBeGreaterThan(800)
  })

  it('accepts the calls the adapters make', () => {
    if (!specs) throw new Error('specs missing')
    const ok: GraphCall[] = [
      {
        node: 'Page',
        method: 'POST',
        edge: 'feed',
        params: { message: 'Hi', attached_media: '[{"media_fbid":"1"}]', published: 'true' },
      },
      {
        node: 'Page',
        method: 'POST',
        edge: 'photos',
        params: { url: 'https://h/a.jpg', published: 'false' },
      },
      {
        node: 'IGUser',
        method: 'POST',
        edge: 'media',
        params: { media_type: 'CAROUSEL', children: '1,2', caption: 'c' },
      },
      { node: 'IGUser', method: 'POST', edge: 'media_publish', params: { creation_id: '1789' } },
      { node: 'IGUserForIGOnlyAPI', method: 'POST', edge: 'media_publish', params: { creation_id: '1789' } },
      {
        node: 'IGMedia',
        method: 'GET',
        edge: 'insights',
        params: { metric: 'views,reach,likes', period: 'lifetime' },
      },
      { node: 'ShadowIGMediaBuilder', method: 'GET', params: { fields: 'status_code,status' } },
      {
        node: 'Page',
        method: 'GET',
        params: { fields: 'id,name,instagram_business_account{id,username},picture.type(large)' },
      },
    ]
    for (const call of ok) expect(validateGraphCall(specs, call)).toEqual([])
  })

  it('catches a misspelt parameter', () => {
    if (!specs) throw new Error('specs missing')
    expect(
      validateGraphCall(specs, { node: 'Page', method: 'POST', edge: 'feed', params: { mesage: 'Hi' } }),
    ).toEqual(['POST Page/feed: unknown parameter mesage'])
  })

  it('catches a missing edge, a wrong type, an enum value outside enum_types.json and an unknown field', () => {
    if (!specs) throw new Error('specs missing')
    expect(validateGraphCall(specs, { node: 'Page', method: 'POST', edge: 'reels', params: {} })[0]).toMatch(
      /has no POST reels/,
    )
    expect(
      validateGraphCall(specs, {
        node: 'Page',
        method: 'POST',
        edge: 'photos',
        params: { published: 'yes' },
      })[0],
    ).toMatch(/not a bool/)
    expect(
      validateGraphCall(specs, {
        node: 'IGUser',
        method: 'POST',
        edge: 'media_publish',
        params: { creation_id: 'abc' },
      })[0],
    ).toMatch(/unsigned int/)
    expect(
      validateGraphCall(specs, {
        node: 'IGMedia',
        method: 'GET',
        edge: 'insights',
        params: { metric: 'views,impresions' },
      })[0],
    ).toMatch(/not one of/)
    expect(
      validateGraphCall(specs, {
        node: 'IGMedia',
        method: 'GET',
        params: { fields: 'permalink,permalnk' },
      })[0],
    ).toMatch(/permalnk/)
    expect(
      validateGraphCall(specs, { node: 'IGUser', method: 'POST', edge: 'media_publish', params: {} })[0],
    ).toMatch(/creation_id is required/)
  })

  it('reads the top-level names of a fields expression', () => {
    expect(topLevelFields('id,a{b,c{d}},picture.type(large),e')).toEqual(['id', 'a', 'picture', 'e'])
  })
})
