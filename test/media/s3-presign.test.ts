import { S3Client } from '@aws-sdk/client-s3'
import { describe, expect, it } from 'vitest'
import { presignGet } from '../../src/modules/media/s3-presign.js'

describe('presigning an S3 GET', () => {
  it("reproduces AWS's published example of a presigned URL, signature included", async () => {
    // docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html ("An example").
    const url = await presignGet({
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      region: 'us-east-1',
      credentials: {
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      sha256: new S3Client({ region: 'us-east-1' }).config.sha256,
      expiresInSeconds: 86_400,
      signingDate: new Date('2013-05-24T00:00:00Z'),
    })
    const signed = new URL(url)
    expect(`${signed.origin}${signed.pathname}`).toBe('https://examplebucket.s3.amazonaws.com/test.txt')
    expect(Object.fromEntries(signed.searchParams)).toEqual({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request',
      'X-Amz-Date': '20130524T000000Z',
      'X-Amz-Expires': '86400',
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Signature': 'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    })
    expect(url).not.toContain('wJalrXUtnFEMI')
  })
})
