import { z } from 'zod'
import { aspectRatios, ImageGenerationError } from '../../modules/media/image-provider.js'
import { charge, currentBalance } from '../../platform/db/statements/credits.js'
import { AppError } from '../../platform/errors.js'
import { creditsCharged, defineTool, toolInput } from './tool.js'

/** DESIGN.md price list. */
export const GENERATE_IMAGE_PRICE = 5

/** A readable file name from the first words of the prompt. */
function nameFor(prompt: string): string {
  const slug = prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .split('-')
    .slice(0, 6)
    .join('-')
    .slice(0, 60)
    .replace(/-+$/, '')
  return `${slug || 'image'}.png`
}

export const generateImage = defineTool({
  name: 'generate_image',
  title: 'Generate an image',
  description:
    'Generate an image from a prompt and host it. Returns a public mediaUrl that create_post accepts as mediaUrl. Costs 5 credits; a failed generation costs nothing.',
  access: 'write',
  category: 'Media',
  input: toolInput({
    prompt: z.string().trim().min(1).max(4000).describe('What the image should show (1 to 4000 characters).'),
    aspectRatio: z
      .enum(aspectRatios)
      .default('1:1')
      .describe(
        'Shape of the image: 1:1 (1080x1080, default), 4:5 (1080x1350), 9:16 (1080x1920) or 16:9 (1920x1080).',
      ),
  }),
  output: z.object({
    mediaUrl: z.string().describe('Public URL of the hosted image; pass it to create_post as mediaUrl.'),
    width: z.number().int().describe('Width in pixels.'),
    height: z.number().int().describe('Height in pixels.'),
    contentType: z.string().describe('MIME type of the image (image/png).'),
    credits: creditsCharged,
  }),
  async handler(input, ctx) {
    const { app, workspace } = ctx
    const db = app.store.db
    // Checked before generating so a workspace that cannot pay does not spend an image API call.
    const balance = await currentBalance(db, workspace.id)
    if (balance < GENERATE_IMAGE_PRICE)
      throw new AppError(
        'insufficient_credits',
        `This needs ${GENERATE_IMAGE_PRICE} credits and the workspace has ${balance}.`,
        { required: GENERATE_IMAGE_PRICE, balance },
      )

    let image: Awaited<ReturnType<typeof app.media.generateImage>>
    try {
      image = await app.media.generateImage({ prompt: input.prompt, aspectRatio: input.aspectRatio })
    } catch (error) {
      if (error instanceof ImageGenerationError) {
        const provider = app.media.imageProvider.name
        app.logger.warn({ provider, reason: error.message }, 'image generation failed')
        throw new AppError(
          error.refused ? 'invalid_request' : 'internal',
          `Image generation failed: ${error.message}`,
        )
      }
      throw error
    }

    const staged = await app.media.stage({
      bytes: image.bytes,
      contentType: image.contentType,
      name: nameFor(input.prompt),
      width: image.width,
      height: image.height,
      workspaceId: workspace.id,
    })
    try {
      // The charge and the media row commit together: either the image exists and was paid, or neither.
      const remaining = await db.transaction().execute(async (trx) => {
        const after = await charge(
          trx,
          {
            workspaceId: workspace.id,
            amount: GENERATE_IMAGE_PRICE,
            reason: 'generate_image',
            reference: staged.record.id,
          },
          app.clock.now(),
        )
        await staged.commit(trx)
        return after
      })
      return {
        mediaUrl: staged.url,
        width: image.width,
        height: image.height,
        contentType: image.contentType,
        credits: { charged: GENERATE_IMAGE_PRICE, remaining },
      }
    } catch (error) {
      await staged
        .discard()
        .catch((cleanup: unknown) => app.logger.warn({ err: cleanup }, 'could not remove a staged image'))
      throw error
    }
  },
})
