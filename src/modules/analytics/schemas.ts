import { z } from 'zod'
import { networkSchema } from '../publishing/schemas.js'

/** zod schemas of the analytics tools (spec §2 readings); every field carries the text clients read. */

const count = (what: string) =>
  z.number().nullable().describe(`${what}; null when the network does not report it.`)

export const postSummarySchema = z
  .object({
    views: count('Views or impressions'),
    likes: count('Likes'),
    comments: count('Comments or replies'),
    shares: count('Shares, reposts and quotes'),
    saves: count('Saves or bookmarks'),
    clicks: count('Link clicks'),
    engagements: count('Likes, comments, shares, saves and clicks together'),
  })
  .describe('The figures under common names.')

export const rawMetricsSchema = z
  .record(z.string(), z.unknown())
  .describe("Raw metrics under the network's own names, as it returned them.")

export const postReadingSchema = z
  .object({
    fetchedAt: z
      .string()
      .nullable()
      .describe('When the profile was last read (ISO 8601); null when it never was.'),
    summary: postSummarySchema,
    metrics: rawMetricsSchema,
    source: z.string().describe("Label of the network's data source; empty when never read."),
    error: z
      .string()
      .describe(
        'Why the last read failed; empty when none. One that mentions reconnecting means the owner must reconnect the profile.',
      ),
    unavailable: z
      .boolean()
      .describe('True when this profile will never report (a personal LinkedIn profile, for one).'),
  })
  .describe('Post analytics reading (spec section 2).')

export const profileSummarySchema = z
  .object({
    followers: count('Followers or subscribers'),
    following: count('Accounts followed'),
    posts: count('Posts or videos'),
    views: count('Views over the window'),
  })
  .describe('The figures under common names.')

export const profileReadingSchema = z
  .object({
    fetchedAt: z
      .string()
      .nullable()
      .describe('When the profile was read (ISO 8601); null when it never was.'),
    summary: profileSummarySchema,
    metrics: rawMetricsSchema,
    window: z.string().describe('The period the flow figures cover, e.g. lifetime; empty when never read.'),
    source: z.string().describe("Label of the network's data source; empty when never read."),
    error: z.string().describe('Why the last read failed; empty when none.'),
    unavailable: z.boolean().describe('True when this profile will never report.'),
  })
  .describe('Profile analytics reading (spec section 2).')

export const postTargetAnalyticsSchema = z.object({
  platform: networkSchema,
  profileId: z.string().describe('Profile id.'),
  username: z.string().describe('Handle.'),
  url: z.string().nullable().describe('Live URL of the published copy; null when it was not published.'),
  analytics: postReadingSchema,
})

export const refreshReportSchema = z
  .object({
    read: z.number().int().describe('Profiles read from their network now.'),
    skipped: z
      .number()
      .int()
      .describe(
        'Profiles not read: not published, unavailable, no longer connected or on a network without analytics here.',
      ),
    failed: z.number().int().describe('Profiles whose read failed (see errors).'),
    errors: z
      .array(
        z.object({
          platform: networkSchema,
          profileId: z.string().describe('Profile id.'),
          username: z.string().describe('Handle.'),
          error: z.string().describe('What went wrong.'),
        }),
      )
      .describe('One entry per failed profile.'),
  })
  .describe('What the refresh did.')

export type PostSummary = z.infer<typeof postSummarySchema>
export type PostReading = z.infer<typeof postReadingSchema>
export type ProfileReading = z.infer<typeof profileReadingSchema>
