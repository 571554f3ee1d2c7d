import type { BlueskySandboxState } from './state.js'

/**
 * The `app.bsky.feed.post` lexicon as the PDS enforces it on createRecord: text of at most 300 graphemes
 * and 3,000 bytes, a `createdAt` datetime, facets whose byte ranges lie inside the text, and an embed of
 * 1–4 images (each with `alt`, at most 2,000,000 bytes) or one MP4 video (at most 100,000,000 bytes)
 * whose blobs this account uploaded. Answers the first problem, or undefined for a valid record.
 */

const MAX_GRAPHEMES = 300
const MAX_TEXT_BYTES = 3000
const IMAGE_MAX_BYTES = 2_000_000
const VIDEO_MAX_BYTES = 100_000_000
const FEATURES = new Set([
  'app.bsky.richtext.facet#link',
  'app.bsky.richtext.facet#mention',
  'app.bsky.richtext.facet#tag',
])
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

type Json = Record<string, unknown>
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const graphemes = (text: string) =>
  [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)].length

export function postRecordProblem(state: BlueskySandboxState, did: string, record: Json): string | undefined {
  const text = record.text
  if (typeof text !== 'string') return 'Record/text must be a string'
  if (graphemes(text) > MAX_GRAPHEMES) return `Record/text must not be longer than ${MAX_GRAPHEMES} graphemes`
  const textBytes = Buffer.byteLength(text)
  if (textBytes > MAX_TEXT_BYTES) return `Record/text must not be longer than ${MAX_TEXT_BYTES} characters`
  if (typeof record.createdAt !== 'string' || !DATETIME.test(record.createdAt))
    return 'Record/createdAt must be an valid atproto datetime (both RFC-3339 and ISO-8601)'
  if (record.facets !== undefined) {
    if (!Array.isArray(record.facets)) return 'Record/facets must be an array'
    for (const [i, facet] of record.facets.entries()) {
      const problem = facetProblem(facet, textBytes)
      if (problem) return `Record/facets/${i}${problem}`
    }
  }
  if (record.reply !== undefined) {
    const problem = replyProblem(state, record.reply)
    if (problem) return problem
  }
  if (record.embed !== undefined) return embedProblem(state, did, record.embed)
  return undefined
}

/**
 * `app.bsky.feed.post#replyRef`: `root` and `parent`, each a `com.atproto.repo.strongRef` (`uri`, `cid`).
 * The lexicon asks only for the shape; the sandbox also holds each ref to a post it stores, with that
 * post's cid, as the AppView needs to thread the reply.
 */
function replyProblem(state: BlueskySandboxState, reply: unknown): string | undefined {
  if (!isRecord(reply)) return 'Record/reply must be an object'
  for (const side of ['root', 'parent'] as const) {
    const ref = reply[side]
    if (!isRecord(ref) || typeof ref.uri !== 'string' || typeof ref.cid !== 'string')
      return `Record/reply/${side} must be a strongRef with uri and cid`
    const target = state.records.get(ref.uri)
    if (target?.collection !== 'app.bsky.feed.post' || target.cid !== ref.cid)
      return `Record/reply/${side} does not reference a post of this PDS with that cid`
  }
  return undefined
}

function facetProblem(facet: unknown, textBytes: number): string | undefined {
  if (!isRecord(facet) || !isRecord(facet.index)) return '/index must be an object'
  const { byteStart, byteEnd } = facet.index
  if (!Number.isInteger(byteStart) || !Number.isInteger(byteEnd))
    return '/index must have integer byteStart and byteEnd'
  if (
    (byteStart as number) < 0 ||
    (byteEnd as number) <= (byteStart as number) ||
    (byteEnd as number) > textBytes
  )
    return '/index must lie inside the text'
  if (!Array.isArray(facet.features) || facet.features.length === 0)
    return '/features must be a non-empty array'
  for (const feature of facet.features) {
    if (!isRecord(feature) || !FEATURES.has(String(feature.$type)))
      return '/features has an unknown feature type'
    const value = feature.uri ?? feature.did ?? feature.tag
    if (typeof value !== 'string' || value === '')
      return `/features: ${String(feature.$type)} lacks its value`
  }
  return undefined
}

function blobProblem(
  state: BlueskySandboxState,
  did: string,
  blob: unknown,
  rule: { types: (type: string) => boolean; maxBytes: number; where: string },
): string | undefined {
  if (!isRecord(blob) || blob.$type !== 'blob' || !isRecord(blob.ref) || typeof blob.ref.$link !== 'string')
    return `${rule.where} should be a blob ref`
  const stored = state.blobs.get(`${did} ${blob.ref.$link}`)
  if (!stored) return `Could not find blob: ${blob.ref.$link}`
  if (!rule.types(stored.mimeType)) return `${rule.where} mime type ${stored.mimeType} is not accepted`
  if (stored.size > rule.maxBytes)
    return `${rule.where} is too big: ${stored.size} bytes, at most ${rule.maxBytes}`
  return undefined
}

function embedProblem(state: BlueskySandboxState, did: string, embed: unknown): string | undefined {
  if (!isRecord(embed)) return 'Record/embed must be an object'
  if (embed.$type === 'app.bsky.embed.images') {
    const images = embed.images
    if (!Array.isArray(images) || images.length === 0 || images.length > 4)
      return 'Record/embed/images must have 1 to 4 images'
    for (const [i, image] of images.entries()) {
      const where = `Record/embed/images/${i}`
      if (!isRecord(image) || typeof image.alt !== 'string') return `${where} must have the property "alt"`
      const problem = blobProblem(state, did, image.image, {
        types: (type) => type.startsWith('image/'),
        maxBytes: IMAGE_MAX_BYTES,
        where: `${where}/image`,
      })
      if (problem) return problem
    }
    return undefined
  }
  if (embed.$type === 'app.bsky.embed.video')
    return blobProblem(state, did, embed.video, {
      types: (type) => type === 'video/mp4',
      maxBytes: VIDEO_MAX_BYTES,
      where: 'Record/embed/video',
    })
  return `Record/embed has an unsupported type ${String(embed.$type)}`
}
