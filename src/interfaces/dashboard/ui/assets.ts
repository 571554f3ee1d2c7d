import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { openToVisitors } from '../sign-in-guard.js'

/**
 * The dashboard's bundled files (bin/build-assets.js writes them to dist/assets/ with a content hash in each
 * name, and a manifest of them): pages link them by their entry name, and the server hands out only the
 * files the manifest names, each cached for a year since a change gives it a new name.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..')
const DIR = path.join(ROOT, 'dist', 'assets')

const TYPES: Record<string, string> = { '.css': 'text/css', '.js': 'text/javascript' }

export class AssetsMissingError extends Error {
  constructor(cause: unknown) {
    super(
      `The dashboard's bundled files are missing from ${DIR} (${(cause as Error).message}); run \`npm run build\` to make them`,
    )
  }
}

function readManifest(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(path.join(DIR, 'manifest.json'), 'utf8')) as Record<string, string>
  } catch (error) {
    throw new AssetsMissingError(error)
  }
}

let manifest: Record<string, string> | undefined

/** The address of a bundled entry (`herald.css`), with its hashed file name. */
export function assetUrl(entry: string): string {
  manifest ??= readManifest()
  const file = manifest[entry]
  if (!file) throw new AssetsMissingError(new Error(`no entry ${entry} in the manifest`))
  return `/assets/${file}`
}

/** Serves the bundled files under /assets/, read once at start. */
export function registerAssetRoutes(scope: FastifyInstance) {
  manifest = readManifest()
  const files = new Map(
    Object.values(manifest).map((file) => [
      file,
      {
        body: readFileSync(path.join(DIR, file)),
        type: TYPES[path.extname(file)] ?? 'application/octet-stream',
      },
    ]),
  )
  scope.get<{ Params: { file: string } }>('/assets/:file', openToVisitors, async (request, reply) => {
    const file = files.get(request.params.file)
    if (!file) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found')
    return reply
      .header('content-type', `${file.type}; charset=utf-8`)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(file.body)
  })
}

/** A bundled entry's text (`mcp-app.css`), for a page that must carry its files inline (an MCP App view). */
export function assetText(entry: string): string {
  manifest ??= readManifest()
  const file = manifest[entry]
  if (!file) throw new AssetsMissingError(new Error(`no entry ${entry} in the manifest`))
  return readFileSync(path.join(DIR, file), 'utf8')
}
