import { execFile, execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'

/**
 * Real videos made at test time with the system's ffmpeg (`apt-get install ffmpeg`; `.ci/run` installs
 * it): a test pattern with a sine tone, small by default (2 s, 320x240), in the container and codecs a
 * case needs.
 */

const run = promisify(execFile)

export const ffmpegPath = (() => {
  try {
    execFileSync('ffmpeg', ['-hide_banner', '-version'], { stdio: 'ignore' })
  } catch {
    throw new Error('no ffmpeg on PATH; the video tests need one (apt-get install ffmpeg)')
  }
  return 'ffmpeg'
})()

export interface ClipOptions {
  seconds?: number
  width?: number
  height?: number
  fps?: number
  /** ffmpeg encoder arguments for the picture, e.g. `['-c:v', 'libvpx', '-b:v', '300k']`. */
  video: string[]
  /** ffmpeg encoder arguments for the sound; absent: no sound track. */
  audio?: string[]
}

/** Writes a test-pattern clip to `path` (the extension picks the container). */
export async function makeClip(path: string, options: ClipOptions): Promise<string> {
  const { seconds = 2, width = 320, height = 240, fps = 25 } = options
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y']
  args.push('-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=${fps}`)
  if (options.audio) args.push('-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100')
  args.push('-t', String(seconds), ...options.video, ...(options.audio ?? ['-an']), path)
  await run(ffmpegPath, args, { timeout: 120_000 })
  return path
}

export const webmClip = (path: string, extra: Partial<ClipOptions> = {}) =>
  makeClip(path, {
    video: ['-c:v', 'libvpx', '-b:v', '300k', '-deadline', 'realtime'],
    audio: ['-c:a', 'libvorbis'],
    ...extra,
  })

export const movClip = (path: string, extra: Partial<ClipOptions> = {}) =>
  makeClip(path, { video: ['-c:v', 'mpeg4', '-q:v', '5'], audio: ['-c:a', 'aac'], ...extra })

export const h264Clip = (path: string, extra: Partial<ClipOptions> = {}) =>
  makeClip(path, {
    video: ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart'],
    audio: ['-c:a', 'aac', '-b:a', '96k'],
    ...extra,
  })

/** Processes whose command line contains `needle` (e.g. a test's unique output path). */
export function processesMentioning(needle: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
      if (cmdline.includes(needle)) found.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return found
}
