import type { Readable } from 'node:stream'
import type { Config } from '../../platform/config.js'
import { createLocalStorage } from './storage-local.js'
import { createS3Storage } from './storage-s3.js'

/**
 * Where hosted media bytes live. One interface, two drivers: a local folder (default, under the data
 * folder) and any S3-compatible bucket; the composition root picks one from `config.media`.
 */
export interface MediaStorage {
  readonly driver: 'local' | 's3'
  /** Streams a local file into storage under `key`, replacing nothing half-written on failure. */
  putFile(key: string, file: string, meta: { contentType: string; size: number }): Promise<void>
  /**
   * The object's bytes, or the inclusive byte `range` of them.
   * @throws {StorageNotFoundError} when no object has this key.
   */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>
  /**
   * A URL that fetches the object without credentials for `expiresInSeconds` (a presigned GET): what
   * networks that fetch by URL are given when storage is S3. Absent on the local driver.
   */
  presignedUrl?(key: string, expiresInSeconds: number): Promise<string>
}

export class StorageNotFoundError extends Error {
  override name = 'StorageNotFoundError'
}

/** Storage keys are `<id>/<file name>`: ids and sanitised names only, so a key never leaves its folder. */
export function assertSafeKey(key: string): void {
  if (!/^[A-Za-z0-9_-]+\/[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(key) || key.includes('..'))
    throw new Error(`Unsafe storage key: ${key}`)
}

export function createMediaStorage(media: Config['media']): MediaStorage {
  return media.driver === 's3' ? createS3Storage(media) : createLocalStorage(media.dir)
}
