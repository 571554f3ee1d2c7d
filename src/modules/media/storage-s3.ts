import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import type { Config } from '../../platform/config.js'
import { presignGet } from './s3-presign.js'
import { assertSafeKey, type MediaStorage, StorageNotFoundError } from './storage.js'

type S3Settings = Extract<Config['media'], { driver: 's3' }>
type Sdk = typeof import('@aws-sdk/client-s3')
type Client = InstanceType<Sdk['S3Client']>

/** Files larger than this go up in parts (S3 takes at most 5 GB in one PUT; parts also bound each request). */
export const MULTIPART_THRESHOLD = 16 * 1024 * 1024
/** Each part streams from the file, so memory stays bounded whatever the file's size. */
export const PART_SIZE = 8 * 1024 * 1024

/**
 * Media in an S3-compatible bucket (AWS, MinIO, R2, ...). A custom endpoint implies path-style addressing,
 * which self-hosted stores expect. Checksums are only sent when an operation requires them, because
 * several S3-compatible stores reject the SDK's newer streaming-checksum encoding. The SDK is loaded on
 * first use, so installations on the local driver never pay for importing it.
 */
export function createS3Storage(
  settings: S3Settings,
  sizes: { multipartThreshold?: number; partSize?: number } = {},
): MediaStorage {
  const multipartThreshold = sizes.multipartThreshold ?? MULTIPART_THRESHOLD
  const partSize = sizes.partSize ?? PART_SIZE
  const connect = lazyClient(settings)
  const Bucket = settings.bucket

  return {
    driver: 's3',
    async putFile(key, file, meta) {
      assertSafeKey(key)
      const { sdk, client } = await connect()
      if (meta.size > multipartThreshold)
        return putInParts(
          { sdk, client, Bucket, partSize },
          { key, file, size: meta.size, type: meta.contentType },
        )
      await client.send(
        new sdk.PutObjectCommand({
          Bucket,
          Key: key,
          Body: createReadStream(file),
          ContentLength: meta.size,
          ContentType: meta.contentType,
        }),
      )
    },
    async read(key, range): Promise<Readable> {
      assertSafeKey(key)
      const { sdk, client } = await connect()
      try {
        const answer = await client.send(
          new sdk.GetObjectCommand({
            Bucket,
            Key: key,
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        )
        return answer.Body as Readable
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode
        if (status === 404 || (error as Error).name === 'NoSuchKey')
          throw new StorageNotFoundError(`No stored media ${key}`)
        throw error
      }
    },
    async delete(key) {
      assertSafeKey(key)
      const { sdk, client } = await connect()
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: key }))
    },
    async presignedUrl(key, expiresInSeconds) {
      assertSafeKey(key)
      const { client } = await connect()
      return presignGet({
        url: objectUrl(settings, key),
        region: settings.region,
        credentials: client.config.credentials,
        sha256: client.config.sha256,
        expiresInSeconds,
      })
    },
  }
}

/** The SDK and its client, made on first use (an installation on the local driver never imports it). */
function lazyClient(settings: S3Settings) {
  let ready: Promise<{ sdk: Sdk; client: Client }> | undefined
  return () => {
    ready ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
        ...(settings.accessKeyId && settings.secretAccessKey
          ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
          : {}),
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    }))
    return ready
  }
}

/** CreateMultipartUpload, one UploadPart per `partSize` slice of the file, Complete; Abort on failure. */
async function putInParts(
  s3: { sdk: Sdk; client: Client; Bucket: string; partSize: number },
  upload: { key: string; file: string; size: number; type: string },
) {
  const { sdk, client, Bucket, partSize } = s3
  const { key, file, size, type } = upload
  const created = await client.send(
    new sdk.CreateMultipartUploadCommand({ Bucket, Key: key, ContentType: type }),
  )
  const UploadId = created.UploadId
  if (!UploadId) throw new Error(`The bucket started no multipart upload for ${key}`)
  try {
    const parts: { ETag: string; PartNumber: number }[] = []
    for (let start = 0, PartNumber = 1; start < size; start += partSize, PartNumber++) {
      const end = Math.min(size, start + partSize) - 1
      const answer = await client.send(
        new sdk.UploadPartCommand({
          Bucket,
          Key: key,
          UploadId,
          PartNumber,
          Body: createReadStream(file, { start, end }),
          ContentLength: end - start + 1,
        }),
      )
      if (!answer.ETag) throw new Error(`The bucket returned no ETag for part ${PartNumber} of ${key}`)
      parts.push({ ETag: answer.ETag, PartNumber })
    }
    await client.send(
      new sdk.CompleteMultipartUploadCommand({
        Bucket,
        Key: key,
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    )
  } catch (error) {
    // Parts of an unfinished upload are billed storage until aborted.
    await client.send(new sdk.AbortMultipartUploadCommand({ Bucket, Key: key, UploadId })).catch(() => {})
    throw error
  }
}

/** The object's address: path-style under a custom endpoint, virtual-hosted on AWS. */
function objectUrl(settings: S3Settings, key: string): URL {
  if (settings.endpoint) {
    const base = settings.endpoint.replace(/\/+$/, '')
    return new URL(`${base}/${settings.bucket}/${key}`)
  }
  return new URL(`https://${settings.bucket}.s3.${settings.region}.amazonaws.com/${key}`)
}
