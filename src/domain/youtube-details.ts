import { YOUTUBE_DESCRIPTION_LIMIT, YOUTUBE_TITLE_LIMIT } from './network-rules.js'

export type PrivacyStatus = 'public' | 'unlisted' | 'private'

export interface YouTubeDetailsInput {
  title?: string | undefined
  description?: string | undefined
  privacyStatus?: PrivacyStatus | undefined
}

export interface ResolvedYouTubeDetails {
  title: string
  description: string
  privacyStatus: PrivacyStatus
}

const stripAngles = (text: string) => text.replace(/[<>]/g, '')

/** Spec §1 rule 4: the first non-empty line of the copy, angle brackets stripped, at most 100 characters. */
export function defaultTitle(copy: string): string {
  const line = copy.split(/\r?\n/).find((l) => l.trim() !== '') ?? ''
  return [...stripAngles(line).trim()].slice(0, YOUTUBE_TITLE_LIMIT).join('').trim()
}

/** Spec §1 rule 5: the whole copy capped at 5,000 characters, `#Shorts` appended unless present. */
export function shortsDescription(text: string): string {
  const tag = '#Shorts'
  if (/#shorts\b/i.test(text)) return [...text].slice(0, YOUTUBE_DESCRIPTION_LIMIT).join('')
  const room = YOUTUBE_DESCRIPTION_LIMIT - tag.length - 1
  const body = [...text].slice(0, room).join('').trimEnd()
  return body ? `${body}\n${tag}` : tag
}

/** The upload details a YouTube target goes out with: what was given, defaults from its copy otherwise. */
export function resolveYouTubeDetails(
  copy: string,
  given: YouTubeDetailsInput | undefined,
): ResolvedYouTubeDetails {
  return {
    title:
      given?.title !== undefined
        ? [...stripAngles(given.title).trim()].slice(0, YOUTUBE_TITLE_LIMIT).join('')
        : defaultTitle(copy),
    description: shortsDescription(given?.description ?? copy),
    privacyStatus: given?.privacyStatus ?? 'public',
  }
}
