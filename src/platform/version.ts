import { createRequire } from 'node:module'

/** Herald's own version, from package.json (src/platform/ and dist/platform/ both sit two levels below it). */
export const HERALD_VERSION: string = (
  createRequire(import.meta.url)('../../package.json') as { version: string }
).version
