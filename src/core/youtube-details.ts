import { buildDescription, buildTitle } from './youtube-rules.js'

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

/**
 * The upload details a YouTube target goes out with: what was given, otherwise the defaults of spec §1
 * (title from the first non-empty line, description from the whole copy with `#Shorts`), computed by the
 * same pure rules the YouTube adapter applies, so what get_post shows is what is uploaded.
 */
export function resolveYouTubeDetails(
  copy: string,
  given: YouTubeDetailsInput | undefined,
): ResolvedYouTubeDetails {
  return {
    title: buildTitle(copy, given?.title),
    description: buildDescription(copy, given?.description),
    privacyStatus: given?.privacyStatus ?? 'public',
  }
}
