import type { FastifyInstance } from 'fastify'
import type { WebEntry, WebPage, WebProfilePage } from '../web/post-page.js'
import { registerWebPages } from '../web/web-scope.js'
import type { SimLocalPost, SimLocation } from './model.js'
import type { GoogleBusinessSandbox } from './state.js'

/**
 * Google's local pages under the web base: `/place?id=<location>&use=posts&lpsid=<post>` (a post's
 * `searchUrl`) shows the post as Search and Maps show it: the location as its author, the photo, an event's
 * or offer's title and dates, the offer's code and terms, and its button (Book, Order online, Buy, Learn
 * more, Sign up, Call now; Get offer on an offer). Without `lpsid`, and at `/locations/<id>`, the location's
 * posts, newest first.
 */

const BUTTONS: Record<string, string> = {
  BOOK: 'Book',
  ORDER: 'Order online',
  SHOP: 'Buy',
  LEARN_MORE: 'Learn more',
  SIGN_UP: 'Sign up',
  CALL: 'Call now',
  GET_OFFER: 'Get offer',
}
const KINDS: Record<string, string> = { EVENT: 'Event', OFFER: 'Offer' }

export function registerGoogleBusinessWebPages(
  server: FastifyInstance,
  sandbox: GoogleBusinessSandbox,
  path: string,
) {
  registerWebPages(server, {
    path,
    network: 'googlebusiness',
    media: (key) => sandbox.kept.get(key),
    routes(app, pages) {
      app.get<{ Querystring: { id?: string; lpsid?: string } }>('/place', async (request, reply) => {
        const location = sandbox.locations.get(`locations/${String(request.query.id ?? '')}`)
        if (!request.query.lpsid)
          return pages.sendProfile(request, reply, location && locationPage(sandbox, location))
        const post = [...sandbox.posts.values()].find(
          (p) => p.id === request.query.lpsid && p.location === location?.name,
        )
        return pages.send(request, reply, post && location ? postPage(location, post) : undefined)
      })
      app.get<{ Params: { id: string } }>('/locations/:id', async (request, reply) => {
        const location = sandbox.locations.get(`locations/${request.params.id}`)
        return pages.sendProfile(request, reply, location && locationPage(sandbox, location))
      })
    },
  })
}

const pad = (n: unknown) => String(n ?? 0).padStart(2, '0')

/** `{year, month, day}` and an optional `{hours, minutes}` as "2026-10-01 09:00". */
function when(date: unknown, time: unknown): string {
  const d = (date ?? {}) as { year?: unknown; month?: unknown; day?: unknown }
  const t = time as { hours?: unknown; minutes?: unknown } | undefined
  return `${d.year}-${pad(d.month)}-${pad(d.day)}${t ? ` ${pad(t.hours)}:${pad(t.minutes)}` : ''}`
}

function entryOf(location: SimLocation, post: SimLocalPost): WebEntry {
  const body = post.post
  const topic = String(body.topicType)
  const event = (body.event ?? undefined) as
    | { title?: string; schedule?: Record<string, unknown> }
    | undefined
  const offer = (body.offer ?? {}) as {
    couponCode?: string
    termsConditions?: string
    redeemOnlineUrl?: string
  }
  const action = body.callToAction as { actionType?: string; url?: string } | undefined
  const facts: string[] = []
  if (event?.schedule)
    facts.push(
      `${when(event.schedule.startDate, event.schedule.startTime)} – ${when(event.schedule.endDate, event.schedule.endTime)}`,
    )
  if (offer.couponCode) facts.push(`Show this code at the store: ${offer.couponCode}`)
  if (offer.termsConditions) facts.push(`Terms and conditions: ${offer.termsConditions}`)
  const button =
    topic === 'OFFER'
      ? {
          label: BUTTONS.GET_OFFER as string,
          ...(offer.redeemOnlineUrl ? { url: offer.redeemOnlineUrl } : {}),
        }
      : action?.actionType
        ? {
            label: BUTTONS[action.actionType] ?? action.actionType,
            ...(action.url ? { url: action.url } : {}),
          }
        : undefined
  return {
    author: { name: location.title, handle: `${location.addressLines.join(', ')}, ${location.locality}` },
    at: post.createdAt,
    text: typeof body.summary === 'string' ? body.summary : '',
    ...(KINDS[topic] ? { badge: KINDS[topic] } : {}),
    ...(event?.title ? { title: event.title } : {}),
    ...(post.photo ? { media: [{ kind: 'image' as const, key: post.photo.key, alt: '' }] } : {}),
    ...(facts.length ? { facts } : {}),
    ...(button ? { action: button } : {}),
  }
}

function postPage(location: SimLocation, post: SimLocalPost): WebPage {
  return {
    network: 'googlebusiness',
    title: `${location.title} - Google Search`,
    post: entryOf(location, post),
  }
}

function locationPage(sandbox: GoogleBusinessSandbox, location: SimLocation): WebProfilePage {
  const id = location.name.split('/')[1]
  return {
    network: 'googlebusiness',
    title: `${location.title} - Google Maps`,
    author: { name: location.title, handle: `${location.addressLines.join(', ')}, ${location.locality}` },
    posts: sandbox
      .listed(location.name)
      .filter((post) => !post.rejected)
      .map((post) => ({ entry: entryOf(location, post), href: `place?id=${id}&use=posts&lpsid=${post.id}` })),
  }
}
