import twitterText from 'twitter-text'

/**
 * A status's text as Mastodon's TextFormatter renders it to `content`: HTML-escaped, paragraphs for blank
 * lines and `<br />` for single line breaks, links with their scheme hidden and long ones cut with an
 * ellipsis (the full address stays in the markup), `@user` and `@user@domain` as mention links showing
 * `@user`, and `#tags` as tag links.
 */

const escapeText = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  )

const MENTION = /(?<=^|[^/\w])@([a-z0-9_]+(?:[a-z0-9_.-]+[a-z0-9_]+)?)(?:@([\w.-]+\w))?/gi
const HASHTAG = /(?<=^|[^/)\w])#([\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*)/gu

function linkHtml(url: string): string {
  const scheme = /^[a-z]+:\/\/(?:www\.)?/i.exec(url)?.[0] ?? ''
  const rest = url.slice(scheme.length)
  const shown = rest.slice(0, 30)
  const hidden = rest.slice(30)
  return `<a href="${escapeText(url)}" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">${escapeText(scheme)}</span><span class="${hidden ? 'ellipsis' : ''}">${escapeText(shown)}</span><span class="invisible">${escapeText(hidden)}</span></a>`
}

/** Mentions and tags in a run of text that holds no link. */
function inlineHtml(text: string, localBase: string): string {
  const spans: { start: number; end: number; html: string }[] = []
  for (const match of text.matchAll(MENTION)) {
    const [whole, user, domain] = match as unknown as [string, string, string | undefined]
    const href = domain ? `https://${domain}/@${user}` : `${localBase}/@${user}`
    spans.push({
      start: match.index,
      end: match.index + whole.length,
      html: `<span class="h-card" translate="no"><a href="${escapeText(href)}" class="u-url mention">@<span>${escapeText(user)}</span></a></span>`,
    })
  }
  for (const match of text.matchAll(HASHTAG)) {
    if (spans.some((s) => match.index < s.end && match.index + match[0].length > s.start)) continue
    spans.push({
      start: match.index,
      end: match.index + match[0].length,
      html: `<a href="${escapeText(`${localBase}/tags/${match[1]!.toLowerCase()}`)}" class="mention hashtag" rel="tag">#<span>${escapeText(match[1]!)}</span></a>`,
    })
  }
  spans.sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const span of spans) {
    out += escapeText(text.slice(at, span.start)) + span.html
    at = span.end
  }
  return out + escapeText(text.slice(at))
}

/** One line with its links, mentions and tags. */
function lineHtml(line: string, localBase: string): string {
  const links = twitterText.extractUrlsWithIndices(line, { extractUrlsWithoutProtocol: false })
  let out = ''
  let at = 0
  for (const { url, indices } of links) {
    out += inlineHtml(line.slice(at, indices[0]), localBase) + linkHtml(url)
    at = indices[1]
  }
  return out + inlineHtml(line.slice(at), localBase)
}

export function formatStatus(text: string, localBase: string): string {
  const trimmed = text.replace(/\r\n?/g, '\n').trim()
  if (trimmed === '') return ''
  return trimmed
    .split(/\n{2,}/)
    .map(
      (paragraph) =>
        `<p>${paragraph
          .split('\n')
          .map((line) => lineHtml(line, localBase))
          .join('<br />')}</p>`,
    )
    .join('')
}
