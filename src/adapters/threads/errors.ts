import { PublishFailure } from '../adapter.js'
import { callGraph, type GraphClient, type GraphRequest } from '../meta/graph.js'

/**
 * Threads answers with Meta's Graph error envelope, classified by `src/adapters/meta/errors.ts` (token
 * errors: auth_expired; rate limits; 5xx and `is_transient`: transient; other refusals: invalid_content
 * with Meta's own words). Three Threads cases are then made plain (reference D.4):
 *
 * - 2207051 ("We restrict certain activity to protect our community") and 4279013 (the account is
 *   restricted), as a code or a subcode, are refusals of the content: invalid_content with Meta's message,
 *   whatever code carried them.
 * - "The media could not be fetched from this URI" means Meta's crawler could not download Herald's hosted
 *   copy: said in those terms, with the setting that decides it.
 * - Code 24 right after a container is `FINISHED` is propagation lag ({@link isPropagationLag}).
 */

export const RESTRICTION_CODES = new Set([2207051, 4279013])

const codesOf = (failure: PublishFailure): number[] =>
  (failure.options.code ?? '')
    .split('/')
    .map(Number)
    .filter((n) => Number.isFinite(n))

export const HOSTED_MEDIA_UNREACHABLE =
  "Threads could not fetch Herald's hosted copy of the media: the media URL under PUBLIC_BASE_URL must be reachable from the internet (https, no sign-in)"

/** Meta's "media fetch failed" subcode (reference C.4), which Threads shares with Instagram. */
const MEDIA_FETCH_SUBCODE = 2207052

/**
 * True when Meta's words say it could not download a media URL. Threads documents no code for this (its
 * container `error_message` and some refusals carry only the sentence, reference D.4), so the sentence is
 * read; a structured subcode wins where there is one ({@link threadsFailure}).
 */
export const isFetchFailure = (text: string | undefined): boolean =>
  text !== undefined && /could not be fetched from this URI/i.test(text)

/** A classified Graph failure with the Threads cases above made plain. */
export function threadsFailure(failure: PublishFailure): PublishFailure {
  const codes = codesOf(failure)
  if (codes.some((code) => RESTRICTION_CODES.has(code)) && failure.kind !== 'invalid_content')
    return new PublishFailure('invalid_content', failure.message, failure.options)
  if (
    (codes.includes(MEDIA_FETCH_SUBCODE) || isFetchFailure(failure.message)) &&
    failure.kind !== 'auth_expired'
  )
    return new PublishFailure('invalid_content', `${HOSTED_MEDIA_UNREACHABLE} (${failure.message})`, {
      ...failure.options,
      code: failure.options.code ?? 'media_fetch',
    })
  return failure
}

/** Code 24 on `threads_publish`: the container is not visible to the publisher yet; a short wait fixes it. */
export const isPropagationLag = (error: unknown): boolean =>
  error instanceof PublishFailure && codesOf(error)[0] === 24

/** {@link callGraph} with Threads' failures made plain. */
export async function callThreads(
  client: GraphClient,
  request: GraphRequest,
): Promise<Record<string, unknown>> {
  try {
    return await callGraph(client, request)
  } catch (error) {
    if (error instanceof PublishFailure) throw threadsFailure(error)
    throw error
  }
}
