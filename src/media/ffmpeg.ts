import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'

/**
 * Finds the ffmpeg Herald converts video with: the configured path when one is set (`none` turns video
 * conversion off), else the binary shipped by `@ffmpeg-installer/ffmpeg`, else `ffmpeg` on PATH, else none.
 * A candidate counts only when `-version` runs and names a version.
 */

export interface Ffmpeg {
  /** The executable to spawn (a file path, or `ffmpeg` when found on PATH). */
  path: string
  /** The version `ffmpeg -version` names, e.g. `N-47683-g0e8eb07980-static` or `6.1.1`. */
  version: string
}

export interface FindFfmpegOptions {
  /** HERALD_FFMPEG_PATH: a path, or `none` to run without ffmpeg. */
  configured?: string | undefined
  /** Test seam: the shipped binary's path (undefined: none shipped). Default: resolved from the npm package. */
  shipped?: string | undefined
  /** Test seam: the name looked up on PATH. Default `ffmpeg`. */
  onPath?: string
}

const VERSION_TIMEOUT_MS = 5_000

/** The shipped binary, or undefined when the package (or its platform build) is not installed. */
export function shippedFfmpegPath(): string | undefined {
  try {
    const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path?: unknown }
    return typeof installer.path === 'string' ? installer.path : undefined
  } catch {
    return undefined
  }
}

/** The version of the ffmpeg at `path`, or undefined when it does not run as ffmpeg. */
export function ffmpegVersion(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, ['-hide_banner', '-version'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout) => {
      if (error) return resolve(undefined)
      resolve(/^ffmpeg version (\S+)/m.exec(String(stdout))?.[1])
    })
  })
}

export async function findFfmpeg(options: FindFfmpegOptions = {}): Promise<Ffmpeg | undefined> {
  const configured = options.configured?.trim()
  if (configured) {
    if (configured.toLowerCase() === 'none') return undefined
    const version = await ffmpegVersion(configured)
    return version ? { path: configured, version } : undefined
  }
  const shipped = 'shipped' in options ? options.shipped : shippedFfmpegPath()
  for (const candidate of [shipped, options.onPath ?? 'ffmpeg']) {
    if (!candidate) continue
    const version = await ffmpegVersion(candidate)
    if (version) return { path: candidate, version }
  }
  return undefined
}

/** How the start line names it: `<path> (<version>)`, or `none`. */
export function describeFfmpeg(ffmpeg: Ffmpeg | undefined): string {
  return ffmpeg ? `${ffmpeg.path} (${ffmpeg.version})` : 'none'
}
