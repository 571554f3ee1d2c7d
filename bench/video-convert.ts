import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, open, rm, stat } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { networkMediaRules } from '../src/core/network-rules.js'
import { planMedia } from '../src/modules/media/conversion-plan.js'
import { convertVideo } from '../src/modules/media/convert-video.js'
import { findFfmpeg } from '../src/modules/media/ffmpeg.js'
import { probeFile } from '../src/modules/media/probe.js'

/**
 * Video conversion as the worker runs it: probe, plan for a network, and ffmpeg as a child process from
 * one temporary file to another. The source is made first with the same ffmpeg (not timed). While the
 * conversion runs, Node's RSS is sampled every 50 ms and ffmpeg's peak RSS (VmHWM) is read from /proc.
 */

const MB = 1024 * 1024
const run = promisify(execFile)

export interface VideoConvertCase {
  name: string
  network: keyof typeof networkMediaRules
  /** ffmpeg arguments that write the source (after the lavfi inputs), ending with its extension. */
  source: { seconds: number; width: number; height: number; fps: number; args: string[]; extension: string }
}

export interface VideoConvertResult {
  name: string
  sourceMb: number
  outputMb: number
  reasons: string[]
  seconds: number
  nodePeakRssGrowthMb: number
  ffmpegPeakRssMb: number | undefined
  /** ffmpeg's user + system CPU seconds (last /proc sample): unlike the wall time, hardly moved by the
   * machine's other load. */
  ffmpegCpuSeconds: number | undefined
  /** The 1-minute load average when the conversion started and when it ended. */
  loadAverage: [number, number]
}

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100

/** ffmpeg's peak RSS so far (/proc/<pid>/status) and CPU seconds so far (/proc/<pid>/stat), for the
 * process writing `target`. */
function ffmpegUsage(target: string): { hwm: number; cpuSeconds: number } | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(target)) continue
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))
      // After the command name's closing parenthesis: field 3 (state) onwards; utime and stime are 14, 15.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ticks = Number(fields[11]) + Number(fields[12])
      if (hwm) return { hwm: Number(hwm[1]) * 1024, cpuSeconds: ticks / USER_HZ }
    } catch {
      // Gone while we looked.
    }
  }
  return undefined
}

export async function measureVideoConversion(testCase: VideoConvertCase): Promise<VideoConvertResult> {
  const ffmpeg = await findFfmpeg()
  if (!ffmpeg)
    throw new Error('no ffmpeg 5.1 or newer on PATH: the video benchmark needs one (apt-get install ffmpeg)')
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-video-'))
  try {
    const { seconds, width, height, fps, args, extension } = testCase.source
    const source = path.join(dir, `source.${extension}`)
    await run(
      ffmpeg.path,
      [
        ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'],
        ...['-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=${fps}`],
        ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
        ...['-t', String(seconds), ...args, source],
      ],
      { timeout: 15 * 60_000 },
    )
    const target = path.join(dir, 'converted.mp4')

    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    const baseline = process.memoryUsage.rss()
    let peak = baseline
    let ffmpegPeak: number | undefined
    let ffmpegCpu: number | undefined
    const loadAtStart = loadavg()[0]!
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss())
      const usage = ffmpegUsage(target)
      if (usage === undefined) return
      ffmpegPeak = Math.max(ffmpegPeak ?? 0, usage.hwm)
      ffmpegCpu = Math.max(ffmpegCpu ?? 0, usage.cpuSeconds)
    }, 50)
    const started = performance.now()
    let reasons: string[] = []
    let outputBytes = 0
    const { size } = await stat(source)
    try {
      const handle = await open(source, 'r')
      const head = Buffer.alloc(4096)
      await handle.read(head, 0, 4096, 0)
      await handle.close()
      const info = await probeFile({ path: source, head, size, extension: `.${extension}` })
      const plan = planMedia(info, networkMediaRules[testCase.network])
      if (plan.action !== 'convert' || plan.kind !== 'video')
        throw new Error(`expected a video conversion, the plan says ${plan.action}`)
      reasons = plan.reasons
      const converted = await convertVideo(source, plan, target, {
        ffmpeg: ffmpeg.path,
        timeoutMs: 30 * 60_000,
      })
      outputBytes = converted.size
    } finally {
      clearInterval(sampler)
      peak = Math.max(peak, process.memoryUsage.rss())
    }
    const round = (n: number) => Math.round(n * 10) / 10
    return {
      name: testCase.name,
      sourceMb: round(size / MB),
      outputMb: round(outputBytes / MB),
      reasons,
      seconds: round((performance.now() - started) / 1000),
      nodePeakRssGrowthMb: round((peak - baseline) / MB),
      ffmpegPeakRssMb: ffmpegPeak === undefined ? undefined : round(ffmpegPeak / MB),
      ffmpegCpuSeconds: ffmpegCpu === undefined ? undefined : round(ffmpegCpu),
      loadAverage: [round(loadAtStart), round(loadavg()[0]!)],
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** A 60-second 1080p30 MOV (MPEG-4 Part 2 picture, AAC sound) converted for Instagram: a full re-encode. */
export const clip1080p: VideoConvertCase = {
  name: '60 s 1080p30 MOV (MPEG-4) → Instagram H.264/AAC MP4',
  network: 'instagram',
  source: {
    seconds: 60,
    width: 1920,
    height: 1080,
    fps: 30,
    args: ['-c:v', 'mpeg4', '-q:v', '3', '-c:a', 'aac', '-b:a', '128k'],
    extension: 'mov',
  },
}

/**
 * About 256 MB in 9.5 seconds: a 720p test pattern under heavy noise, nearly incompressible at MPEG-4 q2
 * (about 230 Mbps), converted for LinkedIn under its 30 Mbps ceiling. The memory case: Node must stay flat.
 */
export const noisy256Mb: VideoConvertCase = {
  name: '256 MB noisy 720p MOV (MPEG-4, 230 Mbps) → LinkedIn H.264/AAC MP4',
  network: 'linkedin',
  source: {
    seconds: 9.5,
    width: 1280,
    height: 720,
    fps: 25,
    args: ['-vf', 'noise=alls=60:allf=t', '-c:v', 'mpeg4', '-q:v', '2', '-c:a', 'aac'],
    extension: 'mov',
  },
}

export async function benchVideoConversion(): Promise<VideoConvertResult[]> {
  return [await measureVideoConversion(clip1080p), await measureVideoConversion(noisy256Mb)]
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  benchVideoConversion().then(
    (results) => process.stdout.write(`${JSON.stringify(results, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`)
      process.exitCode = 1
    },
  )
}
