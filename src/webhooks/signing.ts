import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new endpoint secret in the Standard Webhooks form: `whsec_` and 32 random bytes, base64. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/**
 * The three Standard Webhooks headers for one attempt. Several secrets (during a rotation's overlap) give
 * one `v1,` signature each, space-separated, so a receiver holding either secret verifies the delivery.
 */
export function signatureHeaders(
  messageId: string,
  timestamp: Date,
  body: string,
  secrets: string[],
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': secrets
      .map((secret) => new Webhook(secret).sign(messageId, timestamp, body))
      .join(' '),
  }
}
