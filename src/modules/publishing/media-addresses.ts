import type { Config } from '../../platform/config.js'
import { mediaUrlRefusal } from '../../platform/egress/url-policy.js'
import { invalid } from '../../platform/errors.js'

/**
 * Refuses (400, before anything is written or charged) every media URL Herald will never fetch, naming
 * each URL and the rule. Shared by create_post and update_post, for every network.
 */
export async function refuseUnfetchableMedia(
  urls: string[],
  config: Pick<Config, 'allowPrivateMedia'>,
  hosted: (url: string) => boolean = () => false,
) {
  // Herald's own hosted files (uploads, generated images) are read from storage, never fetched.
  const unique = [...new Set(urls)].filter((url) => !hosted(url))
  const refusals = (
    await Promise.all(unique.map((url) => mediaUrlRefusal(url, { allowPrivate: config.allowPrivateMedia })))
  ).filter((reason): reason is string => reason !== undefined)
  if (refusals.length > 0)
    throw invalid(
      refusals.join('; '),
      refusals.map((message) => ({ path: 'mediaUrls', message })),
    )
}
