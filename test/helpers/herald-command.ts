import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'

const bin = path.resolve(import.meta.dirname, '../../bin/herald.js')

/**
 * Runs the `herald` command as users run it: the compiled build (`npm test` and `npm install` build
 * dist/ first), which starts in a fraction of the time a transpiler would take.
 */
export function runHerald(args: string[], env: NodeJS.ProcessEnv) {
  if (!existsSync(path.resolve(import.meta.dirname, '../../dist/cli.js')))
    throw new Error('dist/ is missing: run `npm run build` (npm install and npm test do it)')
  return promisify(execFile)(process.execPath, [bin, ...args], { env })
}
