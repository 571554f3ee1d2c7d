/**
 * What a pin carries besides its description (the copy) and its media: a title, the page it links to and,
 * for a video pin, the image shown before it plays. All optional; a pin goes out without them. Limits are
 * Pinterest's own [spec: PinCreate]: title 100 characters, link 2,048.
 */

export const PIN_TITLE_LIMIT = 100
export const PIN_LINK_LIMIT = 2_048
/** The longest alt text a pin's image takes [spec: PinCreate.alt_text]. */
export const PIN_ALT_TEXT_LIMIT = 500

export interface PinterestDetailsInput {
  title?: string | undefined
  link?: string | undefined
  coverImageUrl?: string | undefined
}

/** The details a Pinterest target goes out with: only the fields given, trimmed, empty ones left out. */
export interface PinterestDetails {
  title?: string
  link?: string
  coverImageUrl?: string
}

export function resolvePinterestDetails(given: PinterestDetailsInput | undefined): PinterestDetails {
  const title = given?.title?.trim()
  const link = given?.link?.trim()
  const cover = given?.coverImageUrl?.trim()
  return {
    ...(title ? { title } : {}),
    ...(link ? { link } : {}),
    ...(cover ? { coverImageUrl: cover } : {}),
  }
}

/** Why a pin's details cannot go out, as blocker messages naming the field; `who` names the profile. */
export function pinterestDetailBlockers(
  who: string,
  details: PinterestDetails,
  media: { count: number },
): string[] {
  const blockers: string[] = []
  const titleLength = [...(details.title ?? '')].length
  if (titleLength > PIN_TITLE_LIMIT)
    blockers.push(
      `pinterest.title: ${who}: the pin title is ${titleLength} characters; Pinterest allows ${PIN_TITLE_LIMIT}`,
    )
  if (details.link !== undefined && details.link.length > PIN_LINK_LIMIT)
    blockers.push(
      `pinterest.link: ${who}: the link is ${details.link.length} characters; Pinterest allows ${PIN_LINK_LIMIT}`,
    )
  // Whether the one attachment is a video is known once it is fetched; a cover on an image pin is unused.
  if (details.coverImageUrl && media.count !== 1)
    blockers.push(`pinterest.coverImageUrl: ${who}: a cover image is for a video pin (one video)`)
  return blockers
}
