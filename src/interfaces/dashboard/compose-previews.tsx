import type { ComponentChildren } from 'preact'
import { renderToString } from 'preact-render-to-string'
import { callToActionLabels, type ResolvedGoogleBusiness } from '../../core/googlebusiness-details.js'
import { type Network, networkLabels } from '../../core/networks.js'
import type { PinterestDetails } from '../../core/pinterest-details.js'
import { type TikTokDetailsInput, tiktokPrivacyLabels } from '../../core/tiktok-rules.js'
import type { ResolvedYouTubeDetails } from '../../core/youtube-details.js'
import { cropAspect, cutCopy, previewRules } from './preview-rules.js'
import { handleOf, profileAvatar } from './ui/avatar.js'

/**
 * Each profile's preview as its network's feed shows the post: the profile's head, the copy cut where the
 * feed folds it, the media in the network's layout and crop (a video as its poster frame), a card for a link
 * when there is no media, and the thread and first comment under it. Compose and an owner's approval review
 * show the same cards. Rendered from JSX, so every value is escaped by the renderer.
 */

export const PRIVACY_LABELS: Record<string, string> = {
  private: 'Private',
  unlisted: 'Unlisted',
  public: 'Public',
}

export interface PreviewMedia {
  url: string
  /** The path Herald serves the file at, when Herald hosts it (the CSP shows images from Herald only). */
  src?: string
  /** A hosted video's poster frame, served by Herald. */
  poster?: string
  /** The image's alt text, when one was given. */
  altText?: string
  video: boolean
}

/** A link's card as the networks draw one: its site, and the page's title and description when read. */
export interface LinkCard {
  url: string
  host: string
  title?: string
  description?: string
}

/** What one profile's preview shows: its copy and media as they will go out. */
export interface PreviewTarget {
  platform: Network
  username: string
  /** The profile's display name, when known. */
  name?: string
  /** Herald's path of the profile's picture, when it keeps one. */
  avatar?: string | undefined
  copy: string
  media: PreviewMedia[]
  youtube: ResolvedYouTubeDetails | null
  /** A Google Business Profile post's type and button (absent: not a Google post). */
  googlebusiness?: ResolvedGoogleBusiness | null
  /** A pin's title, link and cover (Pinterest targets). */
  pinterest?: PinterestDetails | undefined
  /** A Mastodon status's content warning: the text and media show behind it. */
  contentWarning?: string | undefined
  /** What the TikTok poster chose, shown under the frame. */
  tiktok?: TikTokDetailsInput | undefined
  link?: LinkCard
  /** The thread posts and first comment shown under the post, in order. */
  items?: Array<{ label: string; copy: string; media: PreviewMedia[] }>
}

export { handleOf }
/** A profile as people name it: the network's name and the handle ("X @acme"). */
export const profileName = (platform: Network, username: string) =>
  `${networkLabels[platform]} ${handleOf(username)}`

const fileName = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() || url)
  } catch {
    return url
  }
}

/** Trusted markup built by Herald's own helpers (an avatar, a bundled icon). */
const Raw = ({ html }: { html: string }) => <span class="raw" dangerouslySetInnerHTML={{ __html: html }} />

function Media({ platform, media }: { platform: Network; media: PreviewMedia[] }) {
  if (media.length === 0) return null
  const rule = previewRules[platform]
  const layout = media.length > 1 ? rule.several.layout : 'single'
  const label =
    layout === 'carousel'
      ? `Carousel of ${media.length}, in this order`
      : layout === 'grid'
        ? `Grid of ${media.length}`
        : 'One item'
  // The frame's starting crop is a class (the CSP allows no inline style); the page's script then sets the
  // image's own ratio, within the network's bounds, once it has loaded.
  const crop = `ratio-${Math.round(cropAspect(platform, media.length) * 10_000)}`
  const bounds = media.length === 1 ? { 'data-min': rule.single.min, 'data-max': rule.single.max } : {}
  return (
    // A carousel scrolls sideways, so a keyboard must be able to reach it.
    <ol class={`media ${layout}`} aria-label={label} tabindex={layout === 'carousel' ? 0 : undefined}>
      {media.map((item, index) => (
        <li>
          <figure>
            {item.src && !item.video ? (
              <img src={item.src} alt={item.altText ?? fileName(item.url)} class={crop} {...bounds} />
            ) : item.poster ? (
              <span class={`frame poster ${crop}`}>
                <img src={item.poster} alt="" class="poster-img" />
                <span class="frame-label">Video: {fileName(item.url)}</span>
              </span>
            ) : (
              <span class={`frame ${crop}`}>
                {item.video ? 'Video' : 'Image'}: {fileName(item.url)}
              </span>
            )}
            <figcaption>
              {index + 1} of {media.length}
            </figcaption>
          </figure>
        </li>
      ))}
    </ol>
  )
}

function Copy({ platform, copy }: { platform: Network; copy: string }) {
  const cut = cutCopy(platform, copy)
  return (
    <p class="copy">
      {cut.shown}
      {cut.cut ? (
        <>
          {' '}
          <span class="more">{previewRules[platform].cut.more}</span>
        </>
      ) : null}
    </p>
  )
}

function Link({ link }: { link: LinkCard | undefined }) {
  if (!link) return null
  return (
    <p class="link-card">
      <span class="link-host">{link.host}</span>
      {link.title ? <strong>{link.title}</strong> : null}
      {link.description ? <span class="link-text">{link.description}</span> : null}
    </p>
  )
}

/** The thread posts and first comment under a post's preview, each with its own copy and media. */
/**
 * A toot behind its content warning, as Mastodon shows it: the warning, and "Show more" that opens the text
 * and media (a details element: it opens without a script, and the keyboard reaches it).
 */
function BehindWarning({ warning, children }: { warning: string | undefined; children: ComponentChildren }) {
  if (!warning) return <>{children}</>
  return (
    <details class="pv-cw">
      <summary>
        <span class="pv-cw-text">{warning}</span>
        <span class="pv-cw-toggle" aria-hidden="true" />
      </summary>
      {children}
    </details>
  )
}

function Items({ target }: { target: PreviewTarget }) {
  if (!target.items?.length) return null
  return (
    <ol class="items" aria-label="After the post">
      {target.items.map((item) => (
        <li>
          <p class="item-label">{item.label}</p>
          <BehindWarning warning={target.contentWarning}>
            <Copy platform={target.platform} copy={item.copy} />
            <Media platform={target.platform} media={item.media} />
          </BehindWarning>
        </li>
      ))}
    </ol>
  )
}

function Head({ target }: { target: PreviewTarget }) {
  const shown = target.name?.trim() || target.username
  const avatar = profileAvatar({ ...target, name: shown })
  return (
    <header class="pv-head">
      <Raw html={avatar} />
      <span class="pv-who">
        <strong>{shown}</strong>
        <span class="pv-handle">{handleOf(target.username)}</span>
      </span>
      <span class="pv-net">{networkLabels[target.platform]}</span>
    </header>
  )
}

/** YouTube Shorts: the vertical frame with the title over it, the description folded under. */
function Shorts({ target, youtube }: { target: PreviewTarget; youtube: ResolvedYouTubeDetails }) {
  const frame = target.media[0]
  const picture = frame?.src && !frame.video ? frame.src : frame?.poster
  return (
    <>
      <div class="short-frame">
        {picture ? <img src={picture} alt="" /> : null}
        <span class="short-kind">
          {frame ? `${frame.video ? 'Video' : 'Image'}: ${fileName(frame.url)}` : 'No video yet'}
        </span>
        <strong class="short-title">{youtube.title}</strong>
      </div>
      <Copy platform="youtube" copy={youtube.description} />
      <p class="pv-meta">
        Visibility: <strong>{PRIVACY_LABELS[youtube.privacyStatus] ?? youtube.privacyStatus}</strong>
      </p>
    </>
  )
}

const KIND_LABELS = { update: '', event: 'Event', offer: 'Offer' } as const

/** "1 Oct 2026, 09:30 – 11:00" or "1 Oct – 31 Oct 2026": a Google post's dates as Search shows them. */
function scheduleText(event: NonNullable<ResolvedGoogleBusiness['event']>): string {
  const day = (date: string) => {
    const at = new Date(`${date}T00:00:00Z`)
    return Number.isNaN(at.getTime())
      ? date
      : at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })
  }
  const start = `${day(event.startDate)}${event.startTime ? `, ${event.startTime}` : ''}`
  if (event.startDate === event.endDate) return event.endTime ? `${start} – ${event.endTime}` : start
  return `${start} – ${day(event.endDate)}${event.endTime ? `, ${event.endTime}` : ''}`
}

/**
 * A Google Business Profile post as Search and Maps show it: its photo on top, an event's or offer's kind,
 * title and dates, the summary folded behind "More", an offer's code and terms, and its button (an offer's
 * is Google's own "Get offer").
 */
function Google({ target, details }: { target: PreviewTarget; details: ResolvedGoogleBusiness }) {
  const kind = KIND_LABELS[details.type]
  const event = details.type !== 'update' ? details.event : undefined
  const offer = details.type === 'offer' ? details.offer : undefined
  const button =
    details.type === 'offer'
      ? 'Get offer'
      : details.callToAction
        ? callToActionLabels[details.callToAction.actionType]
        : ''
  return (
    <>
      <Media platform={target.platform} media={target.media.slice(0, 1)} />
      {kind ? <p class="gbp-kind">{kind}</p> : null}
      {event?.title ? <strong class="gbp-title">{event.title}</strong> : null}
      {event ? <p class="gbp-dates">{scheduleText(event)}</p> : null}
      {target.copy.trim() ? <Copy platform={target.platform} copy={target.copy} /> : null}
      {offer?.couponCode ? (
        <p class="gbp-coupon">
          Code: <strong>{offer.couponCode}</strong>
        </p>
      ) : null}
      {offer?.termsConditions ? <p class="gbp-terms">{offer.termsConditions}</p> : null}
      {button ? (
        <p class="gbp-actions">
          <span class="gbp-button">{button}</span>
        </p>
      ) : null}
    </>
  )
}

/** What a TikTok post's viewers are told under the frame: who can watch, the switches, the label. */
function tiktokMeta(tiktok: TikTokDetailsInput | undefined): string {
  if (tiktok?.sendAsDraft) return 'A draft in the creator’s TikTok inbox: they finish and post it in the app.'
  const who = tiktok?.privacyLevel ? tiktokPrivacyLabels[tiktok.privacyLevel] : 'not chosen yet'
  const allowed = [
    tiktok?.allowComments ? 'comments' : '',
    tiktok?.allowDuet ? 'duets' : '',
    tiktok?.allowStitch ? 'stitches' : '',
  ].filter(Boolean)
  const label = tiktok?.brandedContent
    ? ' · Paid partnership'
    : tiktok?.yourBrand
      ? ' · Promotional content'
      : ''
  return `Who can watch: ${who} · ${allowed.length ? `allows ${allowed.join(', ')}` : 'no comments, duets or stitches'}${label}`
}

/**
 * TikTok: the full-screen vertical frame, the handle and the caption (cut where the app folds it) over its
 * foot; photo posts swipe one photo at a time in the same frame.
 */
function TikTok({ target }: { target: PreviewTarget }) {
  const frames = target.media.length ? target.media : [undefined]
  const several = frames.length > 1
  return (
    <>
      <ol
        class="tiktok-frames"
        aria-label={several ? `${frames.length} photos, swiped in this order` : 'The post, full screen'}
        tabindex={several ? 0 : undefined}
      >
        {frames.map((frame, i) => (
          <li class="tiktok-frame">
            {frame?.src && !frame.video ? <img src={frame.src} alt="" /> : null}
            <span class="short-kind">
              {frame
                ? `${frame.video ? 'Video' : `Photo ${i + 1} of ${frames.length}`}: ${fileName(frame.url)}`
                : 'No video or photo yet'}
            </span>
            <div class="tiktok-caption">
              <strong>{handleOf(target.username)}</strong>
              <Copy platform="tiktok" copy={target.copy} />
            </div>
          </li>
        ))}
      </ol>
      <p class="pv-meta">{tiktokMeta(target.tiktok)}</p>
    </>
  )
}

/** A pin: the picture first, then its title, the site it links to, and the description folded under. */
function Pin({ target, pin }: { target: PreviewTarget; pin: PinterestDetails }) {
  let host = ''
  try {
    host = pin.link ? new URL(pin.link).host : ''
  } catch {
    host = ''
  }
  return (
    <>
      {target.media.length ? (
        <Media platform="pinterest" media={target.media} />
      ) : (
        <p class="frame pin-empty">A pin needs an image or a video</p>
      )}
      {pin.title ? <strong class="pin-title">{pin.title}</strong> : null}
      {host ? <p class="pin-link">{host}</p> : null}
      <Copy platform="pinterest" copy={target.copy} />
    </>
  )
}

function Card({ target }: { target: PreviewTarget }) {
  const { platform } = target
  // A Pinterest account's boards share its handle: the board's name tells their pins apart.
  const board = platform === 'pinterest' && target.name ? ` · ${target.name}` : ''
  const fold = cutCopy(platform, target.copy).cut ? (
    <p class="pv-meta">The feed folds the copy after {previewRules[platform].cut.at} characters.</p>
  ) : null
  // Instagram leads with the picture and puts the caption under it; the others lead with the copy.
  const body = target.youtube ? (
    <Shorts target={target} youtube={target.youtube} />
  ) : platform === 'pinterest' ? (
    <Pin target={target} pin={target.pinterest ?? {}} />
  ) : platform === 'tiktok' ? (
    <TikTok target={target} />
  ) : target.googlebusiness ? (
    <Google target={target} details={target.googlebusiness} />
  ) : platform === 'instagram' ? (
    <>
      <Media platform={platform} media={target.media} />
      <Copy platform={platform} copy={target.copy} />
      {fold}
    </>
  ) : (
    <>
      <Copy platform={platform} copy={target.copy} />
      {fold}
      <Media platform={platform} media={target.media} />
      {target.media.length === 0 ? <Link link={target.link} /> : null}
    </>
  )
  return (
    <article class={`pv pv-${platform}`} aria-label={`${profileName(platform, target.username)}${board}`}>
      <Head target={target} />
      <div class="pv-body">
        <BehindWarning warning={target.contentWarning}>{body}</BehindWarning>
      </div>
      <Items target={target} />
    </article>
  )
}

/** Every profile's preview, or a line saying to choose one. */
export function Previews({ targets }: { targets: PreviewTarget[] }) {
  if (targets.length === 0)
    return <p class="muted pv-empty">Choose a profile to see how the post will look there.</p>
  return (
    <>
      {targets.map((target) => (
        <Card target={target} />
      ))}
    </>
  )
}

export const previewHtml = (targets: PreviewTarget[]) => renderToString(<Previews targets={targets} />)
