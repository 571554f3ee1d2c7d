import { execFile } from 'node:child_process'

/**
 * Finds the ffmpeg Herald converts video with: the configured path when one is set (`none` turns video
 * conversion off), else `ffmpeg` on PATH (a maintained build: the distribution's package, e.g. Debian's
 * `apt-get install ffmpeg`). A candidate counts only when `-version` runs, names a version, and that
 * version is at least {@link MIN_FFMPEG_VERSION}: untrusted video is never decoded by an older one, which
 * lacks years of security fixes (Herald no longer ships the 2018 build of `@ffmpeg-installer/ffmpeg`).
 */

export interface Ffmpeg {
  /** The executable to spawn (a file path, or `ffmpeg` when found on PATH). */
  path: string
  /** The version `ffmpeg -version` names, e.g. `5.1.9-0+deb12u1` or `7.1`. */
  version: string
}

/** An ffmpeg that runs but is not used: too old, or its version cannot be read. */
export interface RefusedFfmpeg {
  path: string
  version: string
  reason: string
}

export interface FfmpegLookup {
  ffmpeg?: Ffmpeg
  refused?: RefusedFfmpeg
}

/** The oldest ffmpeg Herald converts with: 5.1 "Riemann", the long-maintained release Debian 12 ships. */
export const MIN_FFMPEG_VERSION: readonly [number, number] = [5, 1]

export interface FindFfmpegOptions {
  /** HERALD_FFMPEG_PATH: a path, or `none` to run without ffmpeg. */
  configured?: string | undefined
  /** Test seam: the name looked up on PATH. Default `ffmpeg`. */
  onPath?: string
}

const VERSION_TIMEOUT_MS = 5_000

/** The version of the ffmpeg at `path`, or undefined when it does not run as ffmpeg. */
export function ffmpegVersion(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, ['-hide_banner', '-version'], { timeout: VERSION_TIMEOUT_MS }, (error, stdout) => {
      if (error) return resolve(undefined)
      resolve(/^ffmpeg version (\S+)/m.exec(String(stdout))?.[1])
    })
  })
}

/** Major and minor of a release version (`5.1.9-0+deb12u1`, `n6.1`, `7.0.2-static`); undefined otherwise. */
export function releaseOf(version: string): [number, number] | undefined {
  const match = /^n?(\d+)\.(\d+)/.exec(version)
  return match ? [Number(match[1]), Number(match[2])] : undefined
}

/** Why this version is not used, or undefined when it is recent enough. */
export function versionProblem(version: string): string | undefined {
  const minimum = MIN_FFMPEG_VERSION.join('.')
  const release = releaseOf(version)
  if (!release)
    return `its version "${version}" is not a release number, so Herald cannot tell it is ${minimum} or newer`
  const [major, minor] = release
  const [needMajor, needMinor] = MIN_FFMPEG_VERSION
  if (major < needMajor || (major === needMajor && minor < needMinor))
    return `${major}.${minor} is older than ${minimum}, the oldest Herald decodes untrusted video with`
  return undefined
}

export async function lookForFfmpeg(options: FindFfmpegOptions = {}): Promise<FfmpegLookup> {
  const configured = options.configured?.trim()
  if (configured?.toLowerCase() === 'none') return {}
  const candidate = configured || options.onPath || 'ffmpeg'
  const version = await ffmpegVersion(candidate)
  if (!version) return {}
  const problem = versionProblem(version)
  if (problem) return { refused: { path: candidate, version, reason: problem } }
  return { ffmpeg: { path: candidate, version } }
}

export async function findFfmpeg(options: FindFfmpegOptions = {}): Promise<Ffmpeg | undefined> {
  return (await lookForFfmpeg(options)).ffmpeg
}

/** How the start line names it: `<path> (<version>)`, or `none` with the reason a found one is not used. */
export function describeFfmpeg(lookup: FfmpegLookup | Ffmpeg | undefined): string {
  if (!lookup) return 'none'
  if ('path' in lookup) return `${lookup.path} (${lookup.version})`
  if (lookup.ffmpeg) return `${lookup.ffmpeg.path} (${lookup.ffmpeg.version})`
  if (lookup.refused) return `none (${lookup.refused.path} not used: ${lookup.refused.reason})`
  return 'none'
}
