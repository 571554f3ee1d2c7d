import type { FastifyInstance } from 'fastify'
import type { WebEntry, WebMedia, WebPage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { BlueskySandboxState, StoredRecord } from './state.js'

/**
 * bsky.app's post pages, `/profile/:actor/post/:rkey` under the web base (the actor a handle or a DID): the
 * post, its images or video from the blobs the PDS holds, a link card, and the author's replies under it
 * (the rest of a thread).
 */
export function registerBlueskyWebPages(server: FastifyInstance, state: BlueskySandboxState, path: string) {
  registerWebPages(server, {
    path,
    network: 'bluesky',
    media: (key) => {
      const blob = state.blobs.get(key)
      return blob && { contentType: blob.mimeType, bytes: blob.bytes }
    },
    routes(app, pages) {
      app.get<{ Params: { actor: string; rkey: string } }>(
        '/profile/:actor/post/:rkey',
        async (request, reply) =>
          pages.send(request, reply, postPage(state, request.params.actor, request.params.rkey)),
      )
    },
  })
}

type Json = Record<string, unknown>
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const parentUri = (record: StoredRecord) => {
  const parent = isRecord(record.value.reply) ? record.value.reply.parent : undefined
  return isRecord(parent) && typeof parent.uri === 'string' ? parent.uri : undefined
}

function postPage(state: BlueskySandboxState, actor: string, rkey: string): WebPage | undefined {
  const account = state.findAccount(actor)
  const record = account && state.records.get(`at://${account.did}/app.bsky.feed.post/${rkey}`)
  if (!account || !record) return undefined
  const parent = parentUri(record)
  const parentAuthor = parent ? state.accounts.get(parent.split('/')[2] ?? '') : undefined
  return {
    network: 'bluesky',
    title: `@${account.handle} on Bluesky`,
    post: entryOf(state, record),
    ...(parentAuthor ? { replyingTo: `@${parentAuthor.handle}` } : {}),
    thread: threadUnder(state, record).map((reply) => entryOf(state, reply)),
  }
}

/** The author's own replies below a post, each answering the post or a reply before it. */
function threadUnder(state: BlueskySandboxState, record: StoredRecord): StoredRecord[] {
  const uris = new Set([record.uri])
  const below: StoredRecord[] = []
  const candidates = state.postsOf(record.did).sort((a, b) => createdAt(a) - createdAt(b))
  for (const candidate of candidates) {
    const parent = parentUri(candidate)
    if (parent && uris.has(parent)) {
      below.push(candidate)
      uris.add(candidate.uri)
    }
  }
  return below
}

const createdAt = (record: StoredRecord) =>
  Date.parse(typeof record.value.createdAt === 'string' ? record.value.createdAt : record.indexedAt)

function entryOf(state: BlueskySandboxState, record: StoredRecord): WebEntry {
  const account = state.accounts.get(record.did)
  const embed = isRecord(record.value.embed) ? record.value.embed : {}
  const external = isRecord(embed.external) ? embed.external : undefined
  return {
    author: {
      name: account?.displayName ?? record.did,
      handle: account ? `@${account.handle}` : record.did,
      ...(account ? { picture: account.did } : {}),
    },
    at: createdAt(record),
    text: typeof record.value.text === 'string' ? record.value.text : '',
    media: mediaOf(state, record.did, embed),
    ...(external && typeof external.uri === 'string'
      ? {
          link: {
            url: external.uri,
            ...(typeof external.title === 'string' && external.title ? { title: external.title } : {}),
          },
        }
      : {}),
  }
}

/** The images (with their alt text) or the video of an `app.bsky.embed.*` embed, by their blob keys. */
function mediaOf(state: BlueskySandboxState, did: string, embed: Json): WebMedia[] {
  const blobKey = (blob: unknown) => {
    const link = isRecord(blob) && isRecord(blob.ref) ? blob.ref.$link : undefined
    const key = typeof link === 'string' ? `${did} ${link}` : undefined
    return key && state.blobs.has(key) ? { key } : {}
  }
  if (embed.$type === 'app.bsky.embed.video') return [{ kind: 'video', ...blobKey(embed.video) }]
  if (embed.$type !== 'app.bsky.embed.images' || !Array.isArray(embed.images)) return []
  return embed.images.filter(isRecord).map((image) => ({
    kind: 'image' as const,
    ...blobKey(image.image),
    ...(typeof image.alt === 'string' ? { alt: image.alt } : {}),
  }))
}
