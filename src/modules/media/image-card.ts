import { createHash } from 'node:crypto'
import sharp from 'sharp'
import { type AspectRatio, type ImageProvider, imageSizes } from './image-provider.js'

/**
 * The offline image provider: a real PNG card with the prompt set in wrapped type on a gradient generated
 * from the prompt (the same prompt always gives the same colours). Needs no network and no API key;
 * fonts come from the system (DejaVu Sans or Liberation Sans).
 */
export function createCardImageProvider(): ImageProvider {
  return {
    name: 'offline-card',
    async generate({ prompt, aspectRatio }) {
      const { width, height } = imageSizes[aspectRatio]
      const bytes = await sharp(Buffer.from(cardSvg(prompt, aspectRatio)))
        .png()
        .toBuffer()
      return { bytes, width, height, contentType: 'image/png' }
    },
  }
}

const MAX_CHARACTERS = 280

/** The card as SVG. Exported for tests of the layout; pure. */
export function cardSvg(prompt: string, aspectRatio: AspectRatio): string {
  const { width, height } = imageSizes[aspectRatio]
  const digest = createHash('sha256').update(prompt).digest()
  const hue = ((digest.readUInt16BE(0) % 360) + 360) % 360
  const from = `hsl(${hue}, 70%, 38%)`
  const to = `hsl(${(hue + 50 + (digest[2]! % 60)) % 360}, 75%, 22%)`
  const text = clean(prompt)
  const margin = Math.round(width * 0.1)
  const { lines, fontSize } = layout(text, width - 2 * margin, height - 2 * margin)
  const lineHeight = Math.round(fontSize * 1.25)
  const top = Math.round((height - lineHeight * lines.length) / 2 + fontSize * 0.9)
  const tspans = lines
    .map((line, i) => `<tspan x="${margin}" y="${top + i * lineHeight}">${escapeXml(line)}</tspan>`)
    .join('')
  const glow = Math.round(Math.min(width, height) * 0.45)
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">',
    `<stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/>`,
    '</linearGradient></defs>',
    `<rect width="${width}" height="${height}" fill="url(#g)"/>`,
    `<circle cx="${width - glow / 2}" cy="${glow / 2}" r="${glow}" fill="#ffffff" fill-opacity="0.07"/>`,
    `<circle cx="${glow / 3}" cy="${height - glow / 3}" r="${glow * 0.7}" fill="#000000" fill-opacity="0.08"/>`,
    `<text font-family="DejaVu Sans, Liberation Sans, sans-serif" font-weight="700" font-size="${fontSize}" fill="#ffffff">${tspans}</text>`,
    '</svg>',
  ].join('')
}

function clean(prompt: string): string {
  const flat = prompt
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return flat.length > MAX_CHARACTERS ? `${flat.slice(0, MAX_CHARACTERS - 1).trimEnd()}…` : flat || ' '
}

/** Largest font size (from width/9 down) at which the wrapped text fits the box. */
function layout(text: string, boxWidth: number, boxHeight: number): { lines: string[]; fontSize: number } {
  for (let fontSize = Math.round(boxWidth / 9); fontSize > 16; fontSize = Math.floor(fontSize * 0.9)) {
    // DejaVu Sans Bold averages about 0.62 em per character.
    const perLine = Math.max(1, Math.floor(boxWidth / (fontSize * 0.62)))
    const lines = wrap(text, perLine)
    if (lines.length * fontSize * 1.25 <= boxHeight) return { lines, fontSize }
  }
  return { lines: wrap(text, Math.floor(boxWidth / (16 * 0.62))), fontSize: 16 }
}

function wrap(text: string, perLine: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    // A word longer than a line is cut across lines.
    for (let rest = word; rest.length > 0; ) {
      const room = line ? perLine - line.length - 1 : perLine
      if (rest.length <= room) {
        line = line ? `${line} ${rest}` : rest
        rest = ''
      } else if (line) {
        lines.push(line)
        line = ''
      } else {
        lines.push(rest.slice(0, perLine))
        rest = rest.slice(perLine)
      }
    }
  }
  if (line) lines.push(line)
  return lines
}

const escapeXml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
