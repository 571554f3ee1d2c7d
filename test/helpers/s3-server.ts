import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import S3rver from 's3rver'

/** s3rver's built-in account: it checks every signature against these, presigned URLs included. */
const ACCESS_KEY_ID = 'S3RVER'
const SECRET_ACCESS_KEY = 'S3RVER'

export interface S3Server {
  endpoint: string
  bucket: string
  /** The HERALD_* settings that point Herald's S3 driver at this server. */
  env: Record<string, string>
  close(): Promise<void>
}

/** A real S3 implementation (s3rver) on 127.0.0.1, port 0, keeping its objects in a temporary folder. */
export async function startS3Server(bucket = 'herald-media'): Promise<S3Server> {
  const directory = mkdtempSync(path.join(tmpdir(), 'herald-s3-'))
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    bucket,
    env: {
      HERALD_MEDIA_STORAGE: 's3',
      HERALD_S3_BUCKET: bucket,
      HERALD_S3_ENDPOINT: endpoint,
      HERALD_S3_ACCESS_KEY_ID: ACCESS_KEY_ID,
      HERALD_S3_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    },
    async close() {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
