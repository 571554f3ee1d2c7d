import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import type { Config } from '../config.js'
import { assertSafeKey, type MediaStorage, StorageNotFoundError } from './storage.js'

type S3Settings = Extract<Config['media'], { driver: 's3' }>
type Sdk = typeof import('@aws-sdk/client-s3')

/**
 * Media in an S3-compatible bucket (AWS, MinIO, R2, ...). A custom endpoint implies path-style addressing,
 * which self-hosted stores expect. Checksums are only sent when an operation requires them, because
 * several S3-compatible stores reject the SDK's newer streaming-checksum encoding. The SDK is loaded on
 * first use, so installations on the local driver never pay for importing it.
 */
export function createS3Storage(settings: S3Settings): MediaStorage {
  let ready: Promise<{ sdk: Sdk; client: InstanceType<Sdk['S3Client']> }> | undefined
  const connect = () => {
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
  const Bucket = settings.bucket
  return {
    driver: 's3',
    async putFile(key, file, meta) {
      assertSafeKey(key)
      const { sdk, client } = await connect()
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
  }
}
