/**
 * Google's JSON error envelope, `{error: {code, message, errors: [{message, domain, reason, location?,
 * locationType?}], status?}}`, with the bodies real YouTube answers (reference B.3 "Error body"; the
 * quotaExceeded, uploadLimitExceeded and invalidTitle texts are copied from captured responses).
 */

export interface GoogleErrorSpec {
  code: number
  domain: string
  message: string
  /** The top-level message when it differs from the per-error one (auth errors). */
  topMessage?: string
  /** The per-error message when it differs from the top-level one. */
  itemMessage?: string
  location?: string
  locationType?: string
  status?: string
}

export const googleErrors = {
  quotaExceeded: {
    code: 403,
    domain: 'youtube.quota',
    message:
      'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
  },
  uploadLimitExceeded: {
    code: 400,
    domain: 'youtube.video',
    message: 'The user has exceeded the number of videos they may upload.',
  },
  invalidTitle: {
    code: 400,
    domain: 'youtube.video',
    message: 'The request metadata specifies an invalid or empty video title.',
    location: 'body.snippet.title',
    locationType: 'other',
  },
  invalidDescription: {
    code: 400,
    domain: 'youtube.video',
    message: 'The request metadata specifies an invalid video description.',
    location: 'body.snippet.description',
    locationType: 'other',
  },
  invalidTags: {
    code: 400,
    domain: 'youtube.video',
    message: 'The request metadata specifies invalid video keywords.',
    location: 'body.snippet.tags',
    locationType: 'other',
  },
  invalidCategoryId: {
    code: 400,
    domain: 'youtube.video',
    message:
      'The <code>snippet.categoryId</code> property specifies an invalid category ID. Use the <code><a href="/youtube/v3/docs/videoCategories/list">videoCategories.list</a></code> method to retrieve supported categories.',
    location: 'body.snippet.categoryId',
    locationType: 'other',
  },
  invalidPrivacyStatus: {
    code: 400,
    domain: 'youtube.video',
    message: 'The request metadata specifies an invalid privacy status.',
    location: 'body.status.privacyStatus',
    locationType: 'other',
  },
  invalidVideoMetadata: {
    code: 400,
    domain: 'youtube.video',
    message: 'The request metadata is invalid.',
  },
  badContent: {
    code: 400,
    domain: 'youtube.video',
    message: 'The uploaded media does not match what the upload session declared.',
  },
  mediaBodyRequired: {
    code: 400,
    domain: 'youtube.video',
    message: 'The request does not include the video content.',
  },
  required: {
    code: 400,
    domain: 'global',
    message: 'Required parameter: part',
    location: 'part',
    locationType: 'parameter',
  },
  unknownPart: {
    code: 400,
    domain: 'youtube.part',
    message: 'unknownPart',
    location: 'part',
    locationType: 'parameter',
  },
  invalidUploadType: {
    code: 400,
    domain: 'global',
    message: 'The sandbox accepts only uploadType=resumable for videos.insert.',
    location: 'uploadType',
    locationType: 'parameter',
  },
  invalidPageToken: {
    code: 400,
    domain: 'youtube.commentThread',
    message: 'The request specifies an invalid page token.',
    location: 'pageToken',
    locationType: 'parameter',
  },
  parseError: {
    code: 400,
    domain: 'global',
    message: 'Parse Error',
  },
  forbidden: {
    code: 403,
    domain: 'youtube.video',
    message: 'The request is not properly authorized.',
  },
  insufficientPermissions: {
    code: 403,
    domain: 'global',
    topMessage: 'Request had insufficient authentication scopes.',
    message: 'Insufficient Permission',
    status: 'PERMISSION_DENIED',
  },
  authError: {
    code: 401,
    domain: 'global',
    topMessage:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    message: 'Invalid Credentials',
    location: 'Authorization',
    locationType: 'header',
    status: 'UNAUTHENTICATED',
  },
  youtubeSignupRequired: {
    code: 401,
    domain: 'youtube.header',
    message: 'Unauthorized',
    location: 'Authorization',
    locationType: 'header',
  },
  notFound: {
    code: 404,
    domain: 'global',
    message: 'Not Found',
  },
  rateLimitExceeded: {
    code: 429,
    domain: 'global',
    message:
      "Quota exceeded for quota metric 'Video Uploads' and limit 'Video Uploads per day' of service 'youtube.googleapis.com' for consumer 'project_number:000000000000'.",
    status: 'RESOURCE_EXHAUSTED',
  },
  internalError: {
    code: 500,
    domain: 'global',
    message: 'Internal Error',
  },
  backendError: {
    code: 503,
    domain: 'global',
    message: 'Backend Error',
  },
} satisfies Record<string, GoogleErrorSpec>

export type GoogleErrorReason = keyof typeof googleErrors

export const isGoogleErrorReason = (value: string): value is GoogleErrorReason =>
  Object.hasOwn(googleErrors, value)

/** The status and body of one Google error; `message` replaces the table's text (e.g. the unknown part). */
export function googleError(
  reason: GoogleErrorReason,
  override: { message?: string; code?: number } = {},
): { status: number; body: unknown } {
  const spec: GoogleErrorSpec = googleErrors[reason]
  const code = override.code ?? spec.code
  const itemMessage = override.message ?? spec.itemMessage ?? spec.message
  const topMessage = override.message ?? spec.topMessage ?? spec.message
  return {
    status: code,
    body: {
      error: {
        code,
        message: topMessage,
        errors: [
          {
            message: itemMessage,
            domain: spec.domain,
            reason,
            ...(spec.location ? { location: spec.location, locationType: spec.locationType } : {}),
          },
        ],
        ...(spec.status ? { status: spec.status } : {}),
      },
    },
  }
}
