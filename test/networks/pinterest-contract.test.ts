import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Ajv, type ValidateFunction } from 'ajv'
import type { FormatsPlugin } from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GrantProfile } from '../../src/adapters/adapter.js'
import { checkPinterestRequest } from '../../src/sandbox/pinterest/contract.js'
import {
  hasPinterestOpenApi,
  PINTEREST_OPENAPI,
  type PinterestWorld,
  pinterestOpenApi,
  startPinterestWorld,
} from './pinterest-fixtures.js'

const addFormats = createRequire(import.meta.url)('ajv-formats') as FormatsPlugin
const pointerOf = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1')

/**
 * OpenAPI 3.0's `nullable: true` in JSON Schema's words, which ajv reads: a typed schema takes `null` as
 * one more type, an untyped one (`allOf` with `nullable`, as the description writes `creative_type`)
 * becomes "that, or null".
 */
function withNulls(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNulls)
  if (typeof node !== 'object' || node === null) return node
  const { nullable, ...rest } = node as Record<string, unknown>
  const out = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, withNulls(v)]))
  if (nullable !== true) return out
  if (typeof out.type === 'string')
    return {
      ...out,
      type: [out.type, 'null'],
      ...(Array.isArray(out.enum) ? { enum: [...out.enum, null] } : {}),
    }
  return { anyOf: [out, { type: 'null' }] }
}

/**
 * The simulator held to Pinterest's own description (`pinterest-v5.openapi.json`, 5.23.0): the calls the
 * adapter makes are the description's operations, the simulator's answers fit the description's response
 * schemas, and a request the description refuses is refused by the simulator too.
 */
describe.runIf(hasPinterestOpenApi)("the Pinterest simulator against Pinterest's description", () => {
  let world: PinterestWorld
  let board: GrantProfile
  let answer: (template: string, method: string, status: number, body: unknown) => string[]
  beforeAll(async () => {
    world = await startPinterestWorld()
    board = (await world.connect('contract_co'))[0]!
    const doc = withNulls(JSON.parse(readFileSync(PINTEREST_OPENAPI, 'utf8'))) as Record<string, unknown>
    const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false })
    addFormats(ajv)
    for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'])
      ajv.addFormat(format, true)
    ajv.addSchema(doc, 'openapi.json')
    const compiled = new Map<string, ValidateFunction>()
    answer = (template, method, status, body) => {
      const pointer = `#/paths/${pointerOf(template)}/${method}/responses/${status}/content/application~1json/schema`
      let validate = compiled.get(pointer)
      if (!validate) {
        validate = ajv.compile({ $ref: `openapi.json${pointer}` })
        compiled.set(pointer, validate)
      }
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
    }
  })
  afterAll(() => world?.close())

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${world.settings.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${board.credentials.accessToken}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    return { status: response.status, body: await response.json() }
  }

  it('makes only calls the description has, each as it describes them', async () => {
    world.validation.reset()
    const image = await world.hosting.publish(world.request(board, 'Contract image', [world.src('tall.jpg')]))
    await world.adapter.publish(
      world.request(board, 'Contract set', [world.src('tall.jpg'), world.src('tall2.jpg')]),
    )
    await world.adapter.publish(world.request(board, 'Contract video', [world.src('clip.mp4')]))
    await world.adapter.findPublished!({
      targetId: 't',
      profile: board.profile,
      credentials: board.credentials,
      content: 'Contract image',
      mediaUrls: [world.src('tall.jpg')],
      since: world.clock.now() - 60_000,
      signal: AbortSignal.timeout(10_000),
    })
    await world.adapter.postMetrics({
      credentials: board.credentials,
      profile: board.profile,
      remoteId: image.remoteId,
    })
    await world.adapter.profileMetrics({ credentials: board.credentials, profile: board.profile })
    await world.adapter.refresh(board.credentials)
    const operations = new Set(world.validation.requests.map((r) => r.operationId))
    expect([...operations].sort()).toEqual([
      'boards/get',
      'boards/list_pins',
      'media/create',
      'media/get',
      'oauth/token',
      'pins/analytics',
      'pins/create',
      'user_account/analytics',
      'user_account/get',
    ])
    expect(world.validation.problems).toEqual([])
    expect(world.sandbox.violations).toEqual([])
  })

  it("answers in the shapes of the description's response schemas", async () => {
    const pin = await world.hosting.publish(
      world.request(board, 'Shaped', [world.src('tall.jpg')], { pinterest: { title: 'T' } }),
    )
    // The check itself tells a wrong shape: an id that is a number, a media type Pinterest has none of.
    expect(answer('/pins/{pin_id}', 'get', 200, { id: 5 })).not.toEqual([])
    expect(answer('/pins/{pin_id}', 'get', 200, { id: '5', media: { media_type: 'gif' } })).not.toEqual([])
    const checks: Array<[string, string, string, number]> = [
      ['/user_account', 'get', '/user_account', 200],
      ['/boards', 'get', '/boards', 200],
      ['/boards/{board_id}', 'get', `/boards/${board.profile.profileId}`, 200],
      ['/boards/{board_id}/pins', 'get', `/boards/${board.profile.profileId}/pins?page_size=2`, 200],
      ['/pins/{pin_id}', 'get', `/pins/${pin.remoteId}`, 200],
      [
        '/pins/{pin_id}/analytics',
        'get',
        `/pins/${pin.remoteId}/analytics?start_date=2026-07-01&end_date=2026-08-03&metric_types=IMPRESSION,SAVE,TOTAL_COMMENTS`,
        200,
      ],
      [
        '/user_account/analytics',
        'get',
        '/user_account/analytics?start_date=2026-07-05&end_date=2026-08-03',
        200,
      ],
      ['/pins/{pin_id}', 'get', '/pins/1', 404],
    ]
    for (const [template, method, path, status] of checks) {
      const got = await call(method.toUpperCase(), path)
      expect(got.status, path).toBe(status)
      expect(answer(template, method, status, got.body), path).toEqual([])
    }
    const media = await call('POST', '/media', { media_type: 'video' })
    expect(answer('/media', 'post', 201, media.body)).toEqual([])
    expect(
      answer('/media/{media_id}', 'get', 200, (await call('GET', `/media/${media.body.media_id}`)).body),
    ).toEqual([])
    const created = await call('POST', '/pins', {
      board_id: board.profile.profileId,
      title: 'Made here',
      media_source: { source_type: 'image_url', url: world.src('tall.jpg') },
    })
    expect(created.status).toBe(201)
    expect(answer('/pins', 'post', 201, created.body)).toEqual([])
    const set = [...world.sandbox.pins.values()].find((p) => p.mediaType === 'multiple_images')
    const video = [...world.sandbox.pins.values()].find((p) => p.mediaType === 'video')
    for (const id of [set?.id, video?.id].filter(Boolean))
      expect(answer('/pins/{pin_id}', 'get', 200, (await call('GET', `/pins/${id}`)).body)).toEqual([])
  })

  it.each([
    ['a title over 100 characters', { title: 'x'.repeat(101) }],
    ['a description over 800 characters', { description: 'x'.repeat(801) }],
    ['alt text over 500 characters', { alt_text: 'x'.repeat(501) }],
    ['a board id that is not digits', { board_id: 'recipes' }],
    [
      'a carousel of one',
      { media_source: { source_type: 'multiple_image_urls', items: [{ url: 'https://a.example/1.jpg' }] } },
    ],
    [
      'a carousel of six',
      {
        media_source: {
          source_type: 'multiple_image_urls',
          items: Array.from({ length: 6 }, (_, i) => ({ url: `https://a.example/${i}.jpg` })),
        },
      },
    ],
    [
      'inline bytes of another type',
      { media_source: { source_type: 'image_base64', content_type: 'image/gif', data: 'R0lG' } },
    ],
    ['a video without its media id', { media_source: { source_type: 'video_id' } }],
    [
      'an unknown source type',
      { media_source: { source_type: 'image_file', url: 'https://a.example/1.jpg' } },
    ],
  ])('refuses, as the description does, a pin with %s', async (_, change) => {
    const body = {
      board_id: board.profile.profileId,
      media_source: { source_type: 'image_url', url: world.src('tall.jpg') },
      ...change,
    }
    const described = pinterestOpenApi().validate({
      method: 'POST',
      path: '/pins',
      query: new URLSearchParams(),
      headers: new Headers({ authorization: 'Bearer t' }),
      body: { contentType: 'application/json', text: JSON.stringify(body) },
    })
    expect(described.problems.length, 'the description refuses it').toBeGreaterThan(0)
    const before = world.sandbox.violations.length
    const got = await call('POST', '/pins', body)
    expect(got).toMatchObject({ status: 400, body: { code: 1 } })
    expect(world.sandbox.violations.length).toBe(before + 1)
    world.sandbox.violations.length = before
  })

  it.each([
    ['a page size over 250', 'GET', '/v5/boards', { page_size: '251' }],
    [
      'an unknown metric',
      'GET',
      '/v5/user_account/analytics',
      { start_date: '2026-08-01', end_date: '2026-08-02', metric_types: 'LIKES' },
    ],
    ['analytics without dates', 'GET', '/v5/pins/1/analytics', { metric_types: 'IMPRESSION' }],
  ])('refuses, as the description does, a read with %s', (_, method, path, query) => {
    const described = pinterestOpenApi().validate({
      method,
      path: path.replace(/^\/v5/, ''),
      query: new URLSearchParams(query),
      headers: new Headers({ authorization: 'Bearer t' }),
    })
    expect(described.problems.length).toBeGreaterThan(0)
    expect(
      checkPinterestRequest({ method, path, query, headers: { authorization: 'Bearer t' }, body: undefined })
        .problems.length,
    ).toBeGreaterThan(0)
  })
})
