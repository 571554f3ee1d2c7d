import { z } from 'zod'
import {
  eventTypes,
  MAX_ENDPOINT_DESCRIPTION_LENGTH,
  MAX_ENDPOINT_URL_LENGTH,
} from '../../core/webhook-events.js'
import { workspaceId } from './manage-api.js'

/**
 * The webhook management REST paths' request schemas: webhook-routes.ts parses requests with them and
 * /openapi.json describes them (src/interfaces/http/openapi.ts), so the two cannot drift apart.
 */

const eventTypesField = z
  .array(z.string().max(64))
  .max(eventTypes.length)
  .describe('Event types to receive; [] or omitted: every type.')

export const endpointCreateBody = z.strictObject({
  workspaceId,
  url: z.string().max(MAX_ENDPOINT_URL_LENGTH).describe('Where events are POSTed (https; public address).'),
  description: z.string().max(MAX_ENDPOINT_DESCRIPTION_LENGTH).optional().describe('A note for people.'),
  eventTypes: eventTypesField.optional(),
  enabled: z.boolean().optional().describe('Default true.'),
})
export const endpointUpdateBody = endpointCreateBody.partial()
export const plainBody = z.strictObject({ workspaceId })
export const attemptsQuery = z.object({
  workspaceId,
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(500)
    .optional()
    .describe('Attempts to return, newest first (default 50).'),
})
export const redeliverBody = z.strictObject({
  workspaceId,
  eventId: z.string().min(1).max(64).describe('The event to send again.'),
})

export const settingsBody = z.strictObject({
  workspaceId,
  creditsLowThreshold: z
    .number()
    .int()
    .min(1)
    .max(1_000_000_000)
    .nullable()
    .describe('A charge that takes the balance below this sends credits.low; null turns it off.'),
})
