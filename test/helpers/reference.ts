import { existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root (this file is `test/helpers/reference.ts`). */
export const projectRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..')

/** `../shared/reference/<relative>` from the project root, where CI and developers keep the shared folder. */
export function referencePath(relative: string): string {
  return path.join(projectRoot, '..', 'shared', 'reference', relative)
}

/**
 * Whether a reference file is there. Under `CI=true` a missing one fails the run (a test that holds an
 * adapter to the network's own description must not pass by skipping); elsewhere it is reported and the
 * tests that need it skip.
 */
export function referenceAvailable(file: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (existsSync(file)) return true
  if (env.CI === 'true')
    throw new Error(`${file} is missing: CI needs ../shared beside the project (reference files)`)
  process.stderr.write(`${file} is absent: the tests that check requests against it are skipped.\n`)
  return false
}

/**
 * Where browser tests save their screenshots: `docs/screenshots` when `HERALD_UPDATE_SCREENSHOTS=1` (to
 * refresh the committed ones), a temporary folder otherwise, so a test run never changes tracked files.
 */
export function screenshotDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir =
    env.HERALD_UPDATE_SCREENSHOTS === '1'
      ? path.join(projectRoot, 'docs', 'screenshots')
      : path.join(tmpdir(), 'herald-screenshots')
  mkdirSync(dir, { recursive: true })
  return dir
}
