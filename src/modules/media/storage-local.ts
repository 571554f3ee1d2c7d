import { randomBytes } from 'node:crypto'
import { copyFile, mkdir, open, rename, rm, rmdir } from 'node:fs/promises'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { assertSafeKey, type MediaStorage, StorageNotFoundError } from './storage.js'

/** Media in a folder on this machine (`config.media.dir`); writes land under a temporary name, then rename. */
export function createLocalStorage(root: string): MediaStorage {
  const pathOf = (key: string) => {
    assertSafeKey(key)
    return path.join(root, key)
  }
  return {
    driver: 'local',
    async putFile(key, file) {
      const target = pathOf(key)
      await mkdir(path.dirname(target), { recursive: true })
      const partial = `${target}.${randomBytes(6).toString('hex')}.partial`
      try {
        await copyFile(file, partial)
        await rename(partial, target)
      } catch (error) {
        await rm(partial, { force: true })
        throw error
      }
    },
    async read(key, range): Promise<Readable> {
      let handle: Awaited<ReturnType<typeof open>>
      try {
        handle = await open(pathOf(key), 'r')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          throw new StorageNotFoundError(`No stored media ${key}`)
        throw error
      }
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {})
    },
    async delete(key) {
      const target = pathOf(key)
      await rm(target, { force: true })
      // The per-id folder goes too when it is empty; another file in it keeps it.
      await rmdir(path.dirname(target)).catch(() => undefined)
    },
  }
}
