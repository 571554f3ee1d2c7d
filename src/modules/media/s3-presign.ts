import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  ChecksumConstructor,
  HashConstructor,
} from '@smithy/types'

/**
 * A presigned S3 GET (SigV4 query authentication, signed by the SDK's own signer): anyone holding the
 * URL can read `url`'s object until it expires, without credentials. The payload is `UNSIGNED-PAYLOAD`
 * and only `host` is signed, as in AWS's published example, so any HTTP client can fetch it as is.
 */
export async function presignGet(input: {
  /** The object's unsigned address (virtual-hosted or path-style). */
  url: URL
  region: string
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider
  sha256: ChecksumConstructor | HashConstructor
  expiresInSeconds: number
  signingDate?: Date
}): Promise<string> {
  const { SignatureV4 } = await import('@smithy/signature-v4')
  const signer = new SignatureV4({
    credentials: input.credentials,
    region: input.region,
    service: 's3',
    sha256: input.sha256,
    // S3 signs the path as sent, not escaped a second time.
    uriEscapePath: false,
  })
  const { url } = input
  const payload = 'x-amz-content-sha256'
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: {},
      // Read by the signer as the payload hash; neither moved into the query nor signed as a header.
      headers: { host: url.host, [payload]: 'UNSIGNED-PAYLOAD' },
    },
    {
      expiresIn: input.expiresInSeconds,
      unhoistableHeaders: new Set([payload]),
      unsignableHeaders: new Set([payload]),
      ...(input.signingDate ? { signingDate: input.signingDate } : {}),
    },
  )
  const query = Object.entries(signed.query ?? {})
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&')
  return `${url.origin}${url.pathname}?${query}`
}
