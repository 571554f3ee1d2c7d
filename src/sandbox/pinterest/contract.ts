import { z } from 'zod'

/**
 * The request contract of every Pinterest call Herald makes, written from Pinterest's official OpenAPI
 * description (`../shared/reference/openapi/pinterest-v5.openapi.json`, 5.23.0): the paths, their query
 * parameters with the description's types and bounds, and the bodies (`PinCreate` with each
 * `PinMediaSource`, `MediaUploadCreate`, the token request). The simulator refuses a request that breaks it
 * (400, code 1, recorded in `violations`); `test/networks/pinterest-contract.test.ts` holds this contract
 * and the adapter's requests to the description itself, so the three cannot drift apart.
 *
 * Unknown fields are refused here although the description's objects do not forbid them: a misspelt field
 * is one Pinterest ignores silently, which is worse than a refusal.
 */

export interface ContractRequest {
  method: string
  /** The path under the simulator's prefix, without the query (`/v5/pins`). */
  path: string
  query: Record<string, string>
  headers: Record<string, string | undefined>
  /** Parsed JSON, form fields as a record, or undefined. */
  body: unknown
}

const digits = z.string().regex(/^\d+$/, 'digits only')
const bearer = z.string().regex(/^Bearer \S+$/, 'Authorization: Bearer <token>')
const basic = z.string().regex(/^Basic [A-Za-z0-9+/=]+$/, 'Authorization: Basic <app id:secret>')
const pageSize = z
  .string()
  .regex(/^\d+$/)
  .refine((v) => Number(v) >= 1 && Number(v) <= 250, 'page_size between 1 and 250')
const bool = z.enum(['true', 'false'])
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date, YYYY-MM-DD')
const adAccount = z.string().max(18).regex(/^\d+$/).optional()
const contentType = z.enum(['image/jpeg', 'image/png'])
const base64 = z.string().regex(/^[a-zA-Z0-9+/=]+$/, 'base64')
const jsonHeaders = z.looseObject({
  authorization: bearer,
  'content-type': z.string().regex(/^application\/json/),
})
const readHeaders = z.looseObject({ authorization: bearer })

/** A comma-separated list of values from `allowed` (`metric_types=IMPRESSION,SAVE`). */
const listOf = (allowed: readonly string[]) =>
  z
    .string()
    .refine(
      (value) => value.split(',').every((v) => allowed.includes(v)),
      `a comma-separated list of ${allowed.join(', ')}`,
    )

const PIN_METRIC_TYPES = [
  'IMPRESSION',
  'OUTBOUND_CLICK',
  'PIN_CLICK',
  'SAVE',
  'SAVE_RATE',
  'TOTAL_COMMENTS',
  'TOTAL_REACTIONS',
  'USER_FOLLOW',
  'PROFILE_VISIT',
  'VIDEO_MRC_VIEW',
  'VIDEO_AVG_WATCH_TIME',
  'VIDEO_V50_WATCH_TIME',
  'QUARTILE_95_PERCENT_VIEW',
  'VIDEO_10S_VIEW',
  'VIDEO_START',
] as const
const ACCOUNT_METRIC_TYPES = [
  'ENGAGEMENT',
  'ENGAGEMENT_RATE',
  'IMPRESSION',
  'OUTBOUND_CLICK',
  'OUTBOUND_CLICK_RATE',
  'PIN_CLICK',
  'PIN_CLICK_RATE',
  'SAVE',
  'SAVE_RATE',
] as const

const imageItem = {
  title: z.string().optional(),
  description: z.string().optional(),
  link: z.string().optional(),
}

/** `PinMediaSource`, by its `source_type` (the closed-beta `pin_url` is not one Herald sends). */
const mediaSource = z.discriminatedUnion('source_type', [
  z.strictObject({
    source_type: z.literal('image_url'),
    url: z.string(),
    is_standard: z.boolean().optional(),
  }),
  z.strictObject({
    source_type: z.literal('image_base64'),
    content_type: contentType,
    data: base64,
    is_standard: z.boolean().optional(),
  }),
  z.strictObject({
    source_type: z.literal('multiple_image_urls'),
    items: z
      .array(z.strictObject({ url: z.string(), ...imageItem }))
      .min(2)
      .max(5),
    index: z.number().int().min(0).optional(),
  }),
  z.strictObject({
    source_type: z.literal('multiple_image_base64'),
    items: z
      .array(z.strictObject({ content_type: contentType, data: base64, ...imageItem }))
      .min(2)
      .max(5),
    index: z.number().int().min(0).optional(),
  }),
  z.strictObject({
    source_type: z.literal('video_id'),
    media_id: digits,
    cover_image_url: z.string().optional(),
    cover_image_data: z.string().optional(),
    cover_image_content_type: contentType.optional(),
    cover_image_key_frame_time: z.number().int().min(0).optional(),
    is_standard: z.boolean().optional(),
  }),
])

export const pinCreateBody = z.strictObject({
  board_id: digits,
  board_section_id: digits.nullable().optional(),
  title: z.string().max(100).nullable().optional(),
  description: z.string().max(800).nullable().optional(),
  link: z.string().max(2048).nullable().optional(),
  alt_text: z.string().max(500).nullable().optional(),
  dominant_color: z.string().nullable().optional(),
  parent_pin_id: digits.nullable().optional(),
  sponsor_id: digits.nullable().optional(),
  media_source: mediaSource,
})

export interface ContractEntry {
  name: string
  method: string
  path: RegExp
  headers: z.ZodType
  query: z.ZodType
  body?: z.ZodType
}

export const pinterestContract: readonly ContractEntry[] = [
  {
    name: 'oauth/token',
    method: 'POST',
    path: /^\/v5\/oauth\/token$/,
    headers: z.looseObject({
      authorization: basic,
      'content-type': z.string().regex(/^application\/x-www-form-urlencoded/),
    }),
    query: z.strictObject({}),
    body: z.union([
      z.strictObject({
        grant_type: z.literal('authorization_code'),
        code: z.string().min(1),
        redirect_uri: z.string().min(1),
        // Named by the operation's description for apps made before 2025-09-25.
        continuous_refresh: bool.optional(),
      }),
      z.strictObject({
        grant_type: z.literal('refresh_token'),
        refresh_token: z.string().min(1),
        scope: z.string().optional(),
      }),
    ]),
  },
  {
    name: 'user_account/get',
    method: 'GET',
    path: /^\/v5\/user_account$/,
    headers: readHeaders,
    query: z.strictObject({ ad_account_id: adAccount }),
  },
  {
    name: 'boards/list',
    method: 'GET',
    path: /^\/v5\/boards$/,
    headers: readHeaders,
    query: z.strictObject({
      ad_account_id: adAccount,
      privacy: z.enum(['ALL', 'PUBLIC', 'PROTECTED', 'SECRET', 'PUBLIC_AND_SECRET']).optional(),
      bookmark: z.string().optional(),
      page_size: pageSize.optional(),
    }),
  },
  {
    name: 'boards/get',
    method: 'GET',
    path: /^\/v5\/boards\/\d+$/,
    headers: readHeaders,
    query: z.strictObject({ ad_account_id: adAccount }),
  },
  {
    name: 'boards/list_pins',
    method: 'GET',
    path: /^\/v5\/boards\/\d+\/pins$/,
    headers: readHeaders,
    query: z.strictObject({
      bookmark: z.string().optional(),
      page_size: pageSize.optional(),
      creative_types: z.string().optional(),
      ad_account_id: adAccount,
      pin_metrics: bool.optional(),
    }),
  },
  {
    name: 'pins/create',
    method: 'POST',
    path: /^\/v5\/pins$/,
    headers: jsonHeaders,
    query: z.strictObject({ ad_account_id: adAccount }),
    body: pinCreateBody,
  },
  {
    name: 'pins/get',
    method: 'GET',
    path: /^\/v5\/pins\/\d+$/,
    headers: readHeaders,
    query: z.strictObject({ ad_account_id: adAccount, pin_metrics: bool.optional() }),
  },
  {
    name: 'media/create',
    method: 'POST',
    path: /^\/v5\/media$/,
    headers: jsonHeaders,
    query: z.strictObject({}),
    body: z.strictObject({ media_type: z.literal('video') }),
  },
  {
    name: 'media/get',
    method: 'GET',
    path: /^\/v5\/media\/\d+$/,
    headers: readHeaders,
    query: z.strictObject({}),
  },
  {
    name: 'pins/analytics',
    method: 'GET',
    path: /^\/v5\/pins\/\d+\/analytics$/,
    headers: readHeaders,
    query: z.strictObject({
      start_date: date,
      end_date: date,
      app_types: z.enum(['ALL', 'MOBILE', 'TABLET', 'WEB']).optional(),
      metric_types: listOf(PIN_METRIC_TYPES),
      split_field: z.enum(['NO_SPLIT', 'APP_TYPE']).optional(),
      ad_account_id: adAccount,
    }),
  },
  {
    name: 'user_account/analytics',
    method: 'GET',
    path: /^\/v5\/user_account\/analytics$/,
    headers: readHeaders,
    query: z.strictObject({
      start_date: date,
      end_date: date,
      from_claimed_content: z.enum(['OTHER', 'CLAIMED', 'BOTH']).optional(),
      pin_format: z.string().optional(),
      app_types: z.enum(['ALL', 'MOBILE', 'TABLET', 'WEB']).optional(),
      content_type: z.enum(['ALL', 'PAID', 'ORGANIC']).optional(),
      source: z.enum(['ALL', 'YOUR_PINS', 'OTHER_PINS']).optional(),
      metric_types: listOf(ACCOUNT_METRIC_TYPES).optional(),
      split_field: z.enum(['NO_SPLIT', 'APP_TYPE', 'OWNED_CONTENT', 'SOURCE', 'PIN_FORMAT']).optional(),
      ad_account_id: adAccount,
    }),
  },
]

/** The entry a request matches and what it breaks (empty when it keeps the contract). */
export function checkPinterestRequest(request: ContractRequest): {
  entry?: ContractEntry
  problems: string[]
} {
  const entry = pinterestContract.find((e) => e.method === request.method && e.path.test(request.path))
  if (!entry) return { problems: [`no Pinterest call Herald makes is ${request.method} ${request.path}`] }
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
  return { entry, problems }
}
