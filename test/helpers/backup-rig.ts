import { createHash } from 'node:crypto'
import fs from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { AppContext } from '../../src/modules/app-context.js'
import { insertMedia } from '../../src/modules/media/media-records.js'
import { newId } from '../../src/platform/ids.js'

/** A hosted media file (its bytes in storage and its row), as the media pipeline leaves one. */
export async function hostMedia(app: AppContext, workspaceId: string, bytes: Buffer, name = 'card.png') {
  const id = newId()
  const key = `${id}/${name}`
  const scratch = fs.mkdtempSync(path.join(tmpdir(), 'herald-media-fixture-'))
  const file = path.join(scratch, name)
  fs.writeFileSync(file, bytes)
  await app.media.storage.putFile(key, file, { contentType: 'image/png', size: bytes.length })
  fs.rmSync(scratch, { recursive: true, force: true })
  await insertMedia(app.store.db, {
    id,
    workspaceId,
    sourceUrl: null,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    contentType: 'image/png',
    size: bytes.length,
    width: 1,
    height: 1,
    durationMs: null,
    storageKey: key,
    name,
    createdAt: Date.now(),
  })
  return key
}

/** Every file under `dir` with the SHA-256 of its bytes (a folder's state, to show a command left it alone). */
export function folderState(dir: string): Record<string, string> {
  const state: Record<string, string> = {}
  if (!fs.existsSync(dir)) return state
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name)
    state[path.relative(dir, full)] = entry.isFile()
      ? createHash('sha256').update(fs.readFileSync(full)).digest('hex')
      : 'folder'
  }
  return state
}

/** Runs `task` on `items` with at most `limit` at once. */
export async function withLimit<T, R>(
  items: T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const index = next++
        results[index] = await task(items[index] as T)
      }
    }),
  )
  return results
}
