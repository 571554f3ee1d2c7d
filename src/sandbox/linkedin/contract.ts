import { z } from 'zod'

/**
 * The request contract of every LinkedIn call Herald makes, written by the project from the reference
 * (`../shared/reference/linkedin-facebook-instagram-threads.md` §A; LinkedIn publishes no
 * machine-readable description, since Rest.li cannot be expressed in OpenAPI). The simulator refuses a
 * request that breaks it, and the adapter tests check every request the adapter sends against it, so the
 * adapter and the simulator cannot drift apart together.
 */

export interface ContractRequest {
  method: string
  /** The URL path without the host prefix the call was mounted under (`/rest/posts`, `/v2/userinfo`). */
  path: string
  query: Record<string, string>
  headers: Record<string, string | undefined>
  /** Parsed JSON, form fields as a record, or undefined (raw bytes are not checked). */
  body: unknown
}

const bearer = z.string().regex(/^Bearer \S+$/, 'Authorization: Bearer <token>')
const urn = (kind: string) =>
  z.string().regex(new RegExp(`^urn:li:${kind}:[A-Za-z0-9_-]+$`), `a urn:li:${kind}: URN`)
const author = z.union([urn('person'), urn('organization')])
const encodedUrn = (kinds: string) =>
  z.string().regex(new RegExp(`^urn:li:(?:${kinds}):[A-Za-z0-9_-]+$`), `a URN of ${kinds}`)

/** `/rest/*` headers: the pinned version and Rest.li 2.0.0 on every call [doc: Posts API note]. */
const restHeaders = z.looseObject({
  authorization: bearer,
  'linkedin-version': z.string().regex(/^\d{6}(\.\d{2})?$/, 'LinkedIn-Version: YYYYMM'),
  'x-restli-protocol-version': z.literal('2.0.0'),
})
const restJsonHeaders = restHeaders.extend({ 'content-type': z.string().regex(/^application\/json/) })
const noQuery = z.strictObject({})
const anyHeaders = z.looseObject({})

const image = z.strictObject({ id: urn('image'), altText: z.string().max(4086).optional() })

const postBody = z
  .strictObject({
    author,
    commentary: z.string(),
    visibility: z.enum(['PUBLIC', 'CONNECTIONS', 'LOGGED_IN']),
    distribution: z.strictObject({
      feedDistribution: z.enum(['MAIN_FEED', 'NONE']),
      targetEntities: z.array(z.unknown()),
      thirdPartyDistributionChannels: z.array(z.unknown()),
    }),
    lifecycleState: z.literal('PUBLISHED'),
    isReshareDisabledByAuthor: z.boolean(),
    content: z
      .union([
        z.strictObject({
          media: z.strictObject({
            id: z.union([urn('image'), urn('video')]),
            altText: z.string().optional(),
            title: z.string().optional(),
          }),
        }),
        z.strictObject({ multiImage: z.strictObject({ images: z.array(image).min(2).max(20) }) }),
        z.strictObject({
          article: z.strictObject({
            source: z.url(),
            title: z.string().min(1),
            description: z.string().optional(),
            thumbnail: urn('image').optional(),
          }),
        }),
      ])
      .optional(),
  })
  .refine((body) => !(body.visibility === 'CONNECTIONS' && body.author.startsWith('urn:li:organization:')), {
    message: 'CONNECTIONS visibility is for members only',
  })

export interface ContractEntry {
  name: string
  method: string
  path: RegExp
  headers: z.ZodType
  query: z.ZodType
  body?: z.ZodType
}

const form = (shape: z.ZodRawShape) => z.strictObject(shape)

export const linkedinContract: readonly ContractEntry[] = [
  {
    name: 'token: authorization_code',
    method: 'POST',
    path: /^\/oauth\/v2\/accessToken$/,
    headers: z.looseObject({ 'content-type': z.string().regex(/^application\/x-www-form-urlencoded/) }),
    query: noQuery,
    body: z.union([
      form({
        grant_type: z.literal('authorization_code'),
        code: z.string().min(1),
        redirect_uri: z.url(),
        client_id: z.string().min(1),
        client_secret: z.string().min(1),
      }),
      form({
        grant_type: z.literal('refresh_token'),
        refresh_token: z.string().min(1),
        client_id: z.string().min(1),
        client_secret: z.string().min(1),
      }),
    ]),
  },
  {
    name: 'userinfo',
    method: 'GET',
    path: /^\/v2\/userinfo$/,
    headers: z.looseObject({ authorization: bearer }),
    query: noQuery,
  },
  {
    name: 'organizationAcls',
    method: 'GET',
    path: /^\/rest\/organizationAcls$/,
    headers: restHeaders,
    query: z.strictObject({
      q: z.literal('roleAssignee'),
      role: z.enum(['ADMINISTRATOR', 'CONTENT_ADMINISTRATOR']),
      state: z.literal('APPROVED'),
      start: z.string().regex(/^\d+$/),
      count: z.string().regex(/^\d+$/),
    }),
  },
  {
    name: 'organizations BATCH_GET',
    method: 'GET',
    path: /^\/rest\/organizations$/,
    headers: restHeaders,
    query: z.strictObject({ ids: z.string().regex(/^List\(\d+(,\d+)*\)$/, 'ids=List(1,2)') }),
  },
  {
    name: 'images initializeUpload',
    method: 'POST',
    path: /^\/rest\/images$/,
    headers: restJsonHeaders,
    query: z.strictObject({ action: z.literal('initializeUpload') }),
    body: z.strictObject({ initializeUploadRequest: z.strictObject({ owner: author }) }),
  },
  {
    name: 'images GET',
    method: 'GET',
    path: /^\/rest\/images\/urn%3Ali%3Aimage%3A[A-Za-z0-9_-]+$/,
    headers: restHeaders,
    query: noQuery,
  },
  {
    name: 'videos initializeUpload',
    method: 'POST',
    path: /^\/rest\/videos$/,
    headers: restJsonHeaders,
    query: z.strictObject({ action: z.literal('initializeUpload') }),
    body: z.strictObject({
      initializeUploadRequest: z.strictObject({
        owner: author,
        fileSizeBytes: z.number().int().positive(),
        uploadCaptions: z.boolean(),
        uploadThumbnail: z.boolean(),
      }),
    }),
  },
  {
    name: 'videos finalizeUpload',
    method: 'POST',
    path: /^\/rest\/videos$/,
    headers: restJsonHeaders,
    query: z.strictObject({ action: z.literal('finalizeUpload') }),
    body: z.strictObject({
      finalizeUploadRequest: z.strictObject({
        video: urn('video'),
        uploadToken: z.string(),
        uploadedPartIds: z.array(z.string().min(1)).min(1),
      }),
    }),
  },
  {
    name: 'videos GET',
    method: 'GET',
    path: /^\/rest\/videos\/urn%3Ali%3Avideo%3A[A-Za-z0-9_-]+$/,
    headers: restHeaders,
    query: noQuery,
  },
  {
    name: 'upload PUT',
    method: 'PUT',
    path: /^\/dms-uploads\/[A-Za-z0-9_-]+$/,
    headers: z.looseObject({ authorization: bearer }),
    query: anyHeaders,
  },
  {
    name: 'posts create',
    method: 'POST',
    path: /^\/rest\/posts$/,
    headers: restJsonHeaders,
    query: noQuery,
    body: postBody,
  },
  {
    name: 'posts by author',
    method: 'GET',
    path: /^\/rest\/posts$/,
    headers: restHeaders,
    // Find posts by authors [doc: Posts API]; Herald assumes `sortBy=LAST_MODIFIED` orders newest first (verify).
    // Rest.li paging: `start` (offset, 0 by default) and `count` (at most 100) [doc: Posts API, Pagination].
    query: z.strictObject({
      q: z.literal('author'),
      author: author,
      start: z.string().regex(/^\d+$/).optional(),
      count: z.string().regex(/^(?:[1-9]\d?|100)$/, 'count between 1 and 100'),
      sortBy: z.literal('LAST_MODIFIED'),
    }),
  },
  {
    // A first comment [reference A.4: `POST /rest/socialActions/{encoded post URN}/comments`
    // with actor, object and message.text]; 1,250 characters [reference D, third-party].
    name: 'socialActions comments create',
    method: 'POST',
    path: /^\/rest\/socialActions\/urn%3Ali%3A(?:share|ugcPost)%3A\d+\/comments$/,
    headers: restJsonHeaders,
    query: noQuery,
    body: z.strictObject({
      actor: author,
      object: z.union([urn('share'), urn('ugcPost')]),
      message: z.strictObject({ text: z.string().min(1).max(1250) }),
    }),
  },
  {
    name: 'socialActions comments list',
    method: 'GET',
    path: /^\/rest\/socialActions\/urn%3Ali%3A(?:share|ugcPost)%3A\d+\/comments$/,
    headers: restHeaders,
    query: z.strictObject({
      start: z.string().regex(/^\d+$/).optional(),
      count: z
        .string()
        .regex(/^(?:[1-9]\d?|100)$/, 'count between 1 and 100')
        .optional(),
    }),
  },
  {
    name: 'organizationalEntityShareStatistics',
    method: 'GET',
    path: /^\/rest\/organizationalEntityShareStatistics$/,
    headers: restHeaders,
    query: z.union([
      z.strictObject({
        q: z.literal('organizationalEntity'),
        organizationalEntity: urn('organization'),
        shares: z.string().regex(/^List\(urn:li:share:\d+\)$/, 'shares=List(<encoded urn:li:share>)'),
      }),
      z.strictObject({
        q: z.literal('organizationalEntity'),
        organizationalEntity: urn('organization'),
        ugcPosts: z.string().regex(/^List\(urn:li:ugcPost:\d+\)$/, 'ugcPosts=List(<encoded urn:li:ugcPost>)'),
      }),
    ]),
  },
  {
    name: 'videoAnalytics',
    method: 'GET',
    path: /^\/rest\/videoAnalytics$/,
    headers: restHeaders,
    query: z.strictObject({
      q: z.literal('entity'),
      entity: encodedUrn('share|ugcPost'),
      type: z.enum(['VIDEO_VIEW', 'VIEWER', 'TIME_WATCHED', 'TIME_WATCHED_FOR_VIDEO_VIEWS']),
      aggregation: z.literal('ALL'),
    }),
  },
  {
    name: 'networkSizes',
    method: 'GET',
    path: /^\/rest\/networkSizes\/urn%3Ali%3Aorganization%3A\d+$/,
    headers: restHeaders,
    // Reference G: COMPANY_FOLLOWED_BY_MEMBER on current versions (older: CompanyFollowedByMember); verify.
    query: z.strictObject({ edgeType: z.literal('COMPANY_FOLLOWED_BY_MEMBER') }),
  },
  {
    name: 'organizationPageStatistics',
    method: 'GET',
    path: /^\/rest\/organizationPageStatistics$/,
    headers: restHeaders,
    query: z.strictObject({ q: z.literal('organization'), organization: urn('organization') }),
  },
]

/** The entry a request matches and what it breaks (empty when it keeps the contract), or none when unknown. */
export function checkLinkedInRequest(request: ContractRequest): {
  entry?: ContractEntry
  problems: string[]
} {
  const candidates = linkedinContract.filter(
    (entry) => entry.method === request.method && entry.path.test(request.path),
  )
  if (candidates.length === 0) return { problems: [`no LinkedIn call is ${request.method} ${request.path}`] }
  let first: { entry: ContractEntry; problems: string[] } | undefined
  for (const entry of candidates) {
    const problems: string[] = []
    const check = (what: string, schema: z.ZodType | undefined, value: unknown) => {
      if (!schema) return
      const parsed = schema.safeParse(value)
      if (!parsed.success)
        for (const issue of parsed.error.issues)
          problems.push(`${what}${issue.path.length ? ` ${issue.path.join('.')}` : ''}: ${issue.message}`)
    }
    check('header', entry.headers, request.headers)
    check('query', entry.query, request.query)
    check('body', entry.body, request.body)
    if (problems.length === 0) return { entry, problems }
    first ??= { entry, problems }
  }
  return first as { entry: ContractEntry; problems: string[] }
}
