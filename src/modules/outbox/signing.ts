import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new endpoint secret in the Standard Webhooks form: `whsec_` and 32 random bytes, base64. */
export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** Signs with one endpoint secret: made once per secret, since decoding the secret is part of the cost. */
export type Signer = Pick<Webhook, 'sign'>

export const signerOf = (secret: string): Signer => new Webhook(secret)

/**
 * The three Standard Webhooks headers for one attempt. Several secrets (during a rotation's overlap) give
 * one `v1,` signature each, space-separated, so a receiver holding either secret verifies the delivery.
 */
export function signatureHeaders(
  messageId: string,
  timestamp: Date,
  body: string,
  signers: Signer[],
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signers.map((signer) => signer.sign(messageId, timestamp, body)).join(' '),
  }
}
