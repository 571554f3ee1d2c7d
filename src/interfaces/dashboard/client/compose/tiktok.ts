/// <reference lib="dom" />

/**
 * Compose's TikTok part in the browser: shown with the consent sentence while a TikTok profile is chosen;
 * the commercial-content kinds shown while the disclosure is on, the sentence naming the Branded Content
 * Policy while branded content is chosen, and "Only me" not offered for branded content (TikTok's
 * content-sharing guidelines). A disclosure turned on with neither kind chosen keeps the buttons off.
 */
export function createTikTokPart() {
  const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T | null
  const section = byId<HTMLElement>('tiktok')
  const consent = byId<HTMLElement>('tiktok-consent')
  const disclose = byId<HTMLInputElement>('tiktok-disclose')
  const kinds = byId<HTMLElement>('tiktok-kinds')
  const branded = byId<HTMLInputElement>('tiktok-branded')
  const privacy = byId<HTMLSelectElement>('tiktok-privacy')
  const chosenKinds = () =>
    [...(kinds?.querySelectorAll<HTMLInputElement>('input[type="checkbox"]') ?? [])].some((b) => b.checked)
  return {
    update(networks: Set<string>) {
      const on = networks.has('tiktok')
      if (section) section.hidden = !on
      if (consent) consent.hidden = !on
      if (kinds) kinds.hidden = !disclose?.checked
      const brandedOn = Boolean(disclose?.checked && branded?.checked)
      if (consent) consent.textContent = (brandedOn ? consent.dataset.branded : consent.dataset.plain) ?? ''
      const onlyMe = privacy ? [...privacy.options].find((o) => o.value === 'SELF_ONLY') : undefined
      if (onlyMe) {
        onlyMe.disabled = brandedOn
        if (brandedOn && privacy?.value === 'SELF_ONLY') privacy.value = ''
      }
    },
    /** False while the TikTok part cannot go out as it stands (a disclosure without its kind). */
    ready(networks: Set<string>) {
      return !networks.has('tiktok') || !disclose?.checked || chosenKinds()
    },
  }
}
