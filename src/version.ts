import { createRequire } from 'node:module'

/** Herald's own version, from package.json (src/ and dist/ both sit one level below it). */
export const HERALD_VERSION: string = (
  createRequire(import.meta.url)('../package.json') as { version: string }
).version
