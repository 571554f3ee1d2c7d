import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

/** A private temporary folder for one media job; everything in it goes when the job is done. */
export interface TempDir {
  dir: string
  /** A path inside the folder. */
  file(name: string): string
  /** Removes the folder and its files. Safe to call twice. */
  dispose(): Promise<void>
}

export async function createTempDir(parent: string = tmpdir()): Promise<TempDir> {
  await mkdir(parent, { recursive: true })
  const dir = await mkdtemp(path.join(parent, 'herald-media-'))
  return {
    dir,
    file: (name) => path.join(dir, path.basename(name)),
    dispose: () => rm(dir, { recursive: true, force: true }),
  }
}
