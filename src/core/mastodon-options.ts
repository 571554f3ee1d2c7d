import { MASTODON_URL_WEIGHT, mastodonLength } from './text-length.js'

/**
 * What only Mastodon takes (the optional `mastodon` object of create_post, update_post and preflight_post):
 * who sees a status, its content warning and its language. Applied to the post and to every item of its
 * thread, so a thread behind a warning stays behind it.
 */

export const mastodonVisibilities = ['public', 'unlisted', 'private', 'direct'] as const
export type MastodonVisibility = (typeof mastodonVisibilities)[number]

export interface MastodonOptions {
  /** public (the default), unlisted (not on public timelines), private (followers only) or direct. */
  visibility?: MastodonVisibility
  /** Shown instead of the text until a reader opens it (Mastodon's `spoiler_text`). */
  contentWarning?: string
  /** ISO 639 code of the text, e.g. `en`. */
  language?: string
}

/** ISO 639-1 (two letters) or ISO 639-3 (three), as Mastodon takes them. */
export const MASTODON_LANGUAGE = /^[a-z]{2,3}$/

/** The longest content warning Herald accepts before the instance's own limit (which counts it with the text). */
export const MAX_CONTENT_WARNING = 1_000

/** The options one profile's status carries: its own entry's over the shared ones; undefined when none. */
export function resolveMastodonOptions(
  shared: MastodonOptions | undefined,
  own: MastodonOptions | undefined,
): MastodonOptions | undefined {
  const merged: MastodonOptions = { ...shared, ...own }
  const out: MastodonOptions = {}
  if (merged.visibility) out.visibility = merged.visibility
  if (merged.contentWarning !== undefined && merged.contentWarning.trim() !== '')
    out.contentWarning = merged.contentWarning
  if (merged.language) out.language = merged.language
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * What an instance lets one status hold, read from its configuration (`configuration.statuses`). A profile
 * carries its instance's figures; Mastodon's defaults stand in until they are read.
 */
export interface InstanceLimits {
  /** `max_characters`: the content warning and the text together. */
  textLimit: number
  /** `max_media_attachments`. */
  maxMedia: number
  /** `characters_reserved_per_url`: what every link weighs. */
  urlWeight: number
}

export const defaultInstanceLimits: InstanceLimits = {
  textLimit: 500,
  maxMedia: 4,
  urlWeight: MASTODON_URL_WEIGHT,
}

/** A status's length on an instance: its content warning and text, every link at the instance's weight. */
export const statusLength = (text: string, options: MastodonOptions | undefined, limits: InstanceLimits) =>
  mastodonLength(text, options?.contentWarning ?? '', limits.urlWeight)
