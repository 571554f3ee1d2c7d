import type { Network } from '../../core/networks.js'

/**
 * A simulator's web page of one post, as the network would show it: who posted it and when, the copy, its
 * media, a link card, the author's thread under it and the comments. Pages are self-contained HTML (one
 * stylesheet and the media, both served by the simulator itself), every value escaped: the copy is
 * whatever a user wrote.
 */

export interface WebMedia {
  kind: 'image' | 'video'
  /** The file's key in the simulator's kept media; absent when the simulator did not keep it (a poster). */
  key?: string
  alt?: string
}

export interface WebEntry {
  /** `picture`: the key of the author's picture the simulator serves (`_avatars/<key>.png`), when it has one. */
  author: { name: string; handle?: string; picture?: string }
  /** Epoch ms. */
  at: number
  text: string
  /** A video's title (YouTube). */
  title?: string
  media?: WebMedia[]
  link?: { url: string; title?: string }
  /** What kind of post it is, over its title (a Google post's "Event", "Offer"). */
  badge?: string
  /** Lines under the copy: an event's dates, an offer's code and terms. */
  facts?: string[]
  /** The post's button (a Google post's "Book", "Get offer"); without a URL it is shown, not a link. */
  action?: { label: string; url?: string }
  /** A line about the post itself, as the network shows it (TikTok: "Only you can see this post"). */
  note?: string
  /** Shown instead of the text and media until the reader opens them (Mastodon's content warning). */
  contentWarning?: string
}

export interface WebPage {
  network: Network
  /** What the browser tab says. */
  title: string
  post: WebEntry
  /** "Replying to @x", for a post that answers another. */
  replyingTo?: string
  /** The author's own posts under this one: the rest of a thread (X, Bluesky, Threads). */
  thread?: WebEntry[]
  /** Comments under the post (Facebook, Instagram, LinkedIn, YouTube). */
  comments?: WebEntry[]
}

/** An account's page: its posts newest first, each linking to the post's own page. */
export interface WebProfilePage {
  network: Network
  title: string
  author: WebEntry['author']
  /** `href` is the post page's path under the web base (`p/Ab12/`). */
  posts: Array<{ entry: WebEntry; href: string }>
}

/** How each network names itself in its page's bar. */
const brands: Record<Network, string> = {
  twitter: 'X',
  facebook: 'facebook',
  instagram: 'Instagram',
  threads: 'Threads',
  linkedin: 'in',
  bluesky: 'Bluesky',
  youtube: 'YouTube',
  googlebusiness: 'Google',
  tiktok: 'TikTok',
  pinterest: 'Pinterest',
  mastodon: 'Mastodon',
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}

/** Up to two letters for an avatar: the first of the first two words (`Corner Shop` → `CS`). */
export function initials(name: string): string {
  const words = name
    .replace(/^@/, '')
    .split(/[\s._-]+/)
    .filter(Boolean)
  const letters = words.slice(0, 2).map((word) => [...word][0] ?? '')
  return (letters.join('') || '?').toUpperCase()
}

const time = (at: number) => {
  const iso = new Date(at).toISOString()
  return `<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`
}

/** A link only to an http(s) address: anything else (`javascript:`) is shown as text. */
function linkCard(link: WebEntry['link']): string {
  if (!link) return ''
  let url: URL
  try {
    url = new URL(link.url)
  } catch {
    return ''
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return ''
  return `<a class="card" href="${escapeHtml(url.href)}" rel="noopener noreferrer nofollow"><span class="host">${escapeHtml(url.host)}</span><span class="card-title">${escapeHtml(link.title ?? url.href)}</span></a>`
}

function mediaHtml(media: readonly WebMedia[] | undefined, assets: string): string {
  if (!media || media.length === 0) return ''
  const items = media.map((item) => {
    const src = item.key ? `${assets}_media/${encodeURIComponent(item.key)}` : undefined
    const alt = escapeHtml(item.alt ?? '')
    if (item.kind === 'image')
      return src
        ? `<img src="${escapeHtml(src)}" alt="${alt}">`
        : `<div class="poster"><span>Image</span></div>`
    return src
      ? `<video src="${escapeHtml(src)}" controls playsinline preload="metadata"></video>`
      : `<div class="poster"><span class="play" aria-hidden="true">▶</span><span>Video</span></div>`
  })
  return `<div class="media n${Math.min(media.length, 4)}">${items.join('')}</div>`
}

/** A post's button: a link to an http(s) address, or the label alone (a Call button dials, it links nowhere). */
function actionHtml(action: WebEntry['action']): string {
  if (!action) return ''
  let url: URL | undefined
  try {
    url = action.url ? new URL(action.url) : undefined
  } catch {
    url = undefined
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:'))
    return `<p class="actions"><a class="action" href="${escapeHtml(url.href)}" rel="noopener noreferrer nofollow">${escapeHtml(action.label)}</a></p>`
  return `<p class="actions"><span class="action">${escapeHtml(action.label)}</span></p>`
}

/** The author's picture, as the network shows it, or their initials where the simulator has none. */
function avatarHtml(author: WebEntry['author'], assets: string, big = false): string {
  const face = author.picture
    ? `<img src="${escapeHtml(`${assets}_avatars/${encodeURIComponent(author.picture)}.png`)}" alt="">`
    : escapeHtml(initials(author.name))
  return `<span class="avatar${big ? ' big' : ''}" aria-hidden="true">${face}</span>`
}

/** The text and media behind a content warning, opened by the reader (no script: a details element). */
function behindWarning(entry: WebEntry, body: string): string {
  if (!entry.contentWarning) return body
  return `<details class="cw"><summary><span class="cw-text">${escapeHtml(entry.contentWarning)}</span><span class="cw-toggle" aria-hidden="true"></span></summary>${body}</details>`
}

function entryHtml(entry: WebEntry, assets: string, role: 'post' | 'item' | 'comment'): string {
  const handle = entry.author.handle ? ` <span class="handle">${escapeHtml(entry.author.handle)}</span>` : ''
  const badge = entry.badge ? `<p class="badge">${escapeHtml(entry.badge)}</p>` : ''
  const facts = entry.facts?.length
    ? `<ul class="facts">${entry.facts.map((fact) => `<li>${escapeHtml(fact)}</li>`).join('')}</ul>`
    : ''
  return `<article class="entry ${role}">
<header class="meta">${avatarHtml(entry.author, assets)}<span class="who"><strong class="name">${escapeHtml(entry.author.name)}</strong>${handle}</span>${time(entry.at)}</header>
${badge}${entry.title ? `<h1 class="title">${escapeHtml(entry.title)}</h1>` : ''}${behindWarning(entry, `${entry.text ? `<div class="text">${escapeHtml(entry.text)}</div>` : ''}${mediaHtml(entry.media, assets)}`)}${facts}${linkCard(entry.link)}${actionHtml(entry.action)}${entry.note ? `<p class="note">${escapeHtml(entry.note)}</p>` : ''}
</article>`
}

function frame(network: Network, title: string, main: string, assets: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="stylesheet" href="${escapeHtml(assets)}_assets/page.css"></head>
<body class="net-${network}"><header class="bar"><span class="brand">${brands[network]}</span><span class="sandbox">Simulated by Herald's sandbox</span></header>
<main>${main}</main></body></html>`
}

/**
 * The whole page of a post. `assets` is the way from the page's address to the simulator's web base
 * (`../../` under `/user/status/1`), so the stylesheet and media load from wherever the base is mounted.
 */
export function renderPostPage(page: WebPage, assets: string): string {
  const replying = page.replyingTo ? `<p class="replying">Replying to ${escapeHtml(page.replyingTo)}</p>` : ''
  const thread = (page.thread ?? []).map((entry) => entryHtml(entry, assets, 'item')).join('\n')
  const comments = (page.comments ?? []).map((entry) => entryHtml(entry, assets, 'comment')).join('\n')
  const main = `${replying}${entryHtml(page.post, assets, 'post')}
${thread ? `<section class="thread" aria-label="Thread">${thread}</section>` : ''}
${comments ? `<section class="comments" aria-label="Comments"><h2>Comments</h2>${comments}</section>` : ''}`
  return frame(page.network, page.title, main, assets)
}

/** An account's page (Instagram's and Threads' profile links, a Facebook Page's address). */
export function renderProfilePage(page: WebProfilePage, assets: string): string {
  const handle = page.author.handle ? `<span class="handle">${escapeHtml(page.author.handle)}</span>` : ''
  const posts = page.posts
    .map(
      ({ entry, href }) =>
        `${entryHtml(entry, assets, 'item')}<p class="open"><a href="${escapeHtml(assets + href)}">Open post</a></p>`,
    )
    .join('\n')
  const main = `<section class="profile">${avatarHtml(page.author, assets, true)}<h1 class="title">${escapeHtml(page.author.name)}</h1>${handle}</section>
${posts || '<p class="open">No posts yet.</p>'}`
  return frame(page.network, page.title, main, assets)
}

/** The page for an address that names no post the simulator holds. */
export function renderMissingPage(network: Network, assets: string): string {
  return frame(
    network,
    'Page not found',
    `<article class="entry missing"><h1 class="title">This post doesn't exist</h1><div class="text">The simulated network holds no post at this address: it may have been deleted, or the link is wrong.</div></article>`,
    assets,
  )
}
