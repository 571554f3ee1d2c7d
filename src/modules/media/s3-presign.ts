import type { S3Client } from '@aws-sdk/client-s3'
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  ChecksumConstructor,
  HashConstructor,
} from '@smithy/types'

type Credentials = AwsCredentialIdentity | AwsCredentialIdentityProvider
type Sha256 = ChecksumConstructor | HashConstructor

/** Read by the signer as the payload hash; neither moved into the query nor signed as a header. */
const PAYLOAD_HASH = 'x-amz-content-sha256'

/**
 * A presigned S3 GET (SigV4 query authentication, by the SDK's presigner: `getSignedUrl` of a
 * `GetObjectCommand`): anyone holding the URL can read `url`'s object until it expires, without
 * credentials. The payload is `UNSIGNED-PAYLOAD` and only `host` is signed, as in AWS's published example,
 * so any HTTP client can fetch it as is. The SDK is loaded on first use, like the S3 driver itself.
 */
export async function presignGet(input: {
  /** The object's unsigned address (virtual-hosted or path-style). */
  url: URL
  region: string
  credentials: Credentials
  sha256: Sha256
  expiresInSeconds: number
  signingDate?: Date
}): Promise<string> {
  const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/s3-request-presigner'),
  ])
  const { url } = input
  // The address is given whole (`bucketEndpoint`): its origin stands for the bucket, its path for the key,
  // so a virtual-hosted AWS address and a path-style MinIO one are signed exactly as written.
  const command = new GetObjectCommand({ Bucket: url.origin, Key: decodeURIComponent(url.pathname.slice(1)) })
  // The SDK marks each request with `x-id=GetObject`; a presigned URL is handed to networks as a plain
  // address, so it carries the signature's parameters and nothing else.
  command.middlewareStack.add(
    (next) => (args) => {
      const request = args.request as { query?: Record<string, unknown> }
      if (request.query) delete request.query['x-id']
      return next(args)
    },
    { step: 'build', name: 'plainPresignedAddress' },
  )
  return getSignedUrl(await clientFor(input), command, {
    expiresIn: input.expiresInSeconds,
    unhoistableHeaders: new Set([PAYLOAD_HASH]),
    unsignableHeaders: new Set([PAYLOAD_HASH]),
    ...(input.signingDate ? { signingDate: input.signingDate } : {}),
  })
}

/**
 * One signing client per credentials, hash and region: building an S3 client costs more than signing with
 * one (about 2 ms against 1 ms here), and a storage driver presigns with the same three every time.
 */
const clients = new WeakMap<Credentials, WeakMap<Sha256, Map<string, S3Client>>>()

async function clientFor(input: { region: string; credentials: Credentials; sha256: Sha256 }) {
  const byHash = clients.get(input.credentials) ?? new WeakMap<Sha256, Map<string, S3Client>>()
  clients.set(input.credentials, byHash)
  const byRegion = byHash.get(input.sha256) ?? new Map<string, S3Client>()
  byHash.set(input.sha256, byRegion)
  const known = byRegion.get(input.region)
  if (known) return known
  const { S3Client } = await import('@aws-sdk/client-s3')
  const client = new S3Client({
    region: input.region,
    credentials: input.credentials,
    sha256: input.sha256,
    bucketEndpoint: true,
    // No checksum parameters in the URL (`x-amz-checksum-mode`): the GET is a plain read.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  })
  byRegion.set(input.region, client)
  return client
}
